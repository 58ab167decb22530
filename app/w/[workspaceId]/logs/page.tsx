import { LogsView } from "./logs-view";

export const metadata = { title: "Logs · Model Gateway" };

export default function LogsPage() {
  return <LogsView />;
}
