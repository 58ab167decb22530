import { Badge } from "@/app/_components/ui";
import { statusTone } from "./log-format";

/** The status coloured by its class, with the error code of a refused or failed call. */
export function StatusBadge({ status, code }: { status: number; code: string | null }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <Badge tone={statusTone(status)}>{status}</Badge>
      {code ? <code className="text-xs text-slate-600">{code}</code> : null}
    </span>
  );
}
