import { AuditLog } from "./audit-log";

export const metadata = { title: "Audit log · Model Gateway" };

export default function AuditPage() {
  return <AuditLog />;
}
