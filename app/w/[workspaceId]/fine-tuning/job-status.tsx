// A fine-tuning job's status as a badge, and which actions its status allows (the API answers 409
// or 400 otherwise).
import { Badge } from "@/app/_components/ui";
import type { FtStatus } from "./job-shape";

const TONE = {
  validating_files: "amber",
  queued: "slate",
  running: "indigo",
  paused: "amber",
  succeeded: "green",
  failed: "red",
  cancelled: "slate",
} as const satisfies Record<FtStatus, string>;

const LABEL = {
  validating_files: "Validating files",
  queued: "Queued",
  running: "Running",
  paused: "Paused",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
} as const satisfies Record<FtStatus, string>;

const ENDED: readonly FtStatus[] = ["succeeded", "failed", "cancelled"];

/** Whether the job may still change: the pages poll while one shown has not ended. */
export const isLive = (status: FtStatus) => !ENDED.includes(status);
export const isCancellable = (status: FtStatus) => isLive(status);
export const isPausable = (status: FtStatus) => status === "running";
export const isResumable = (status: FtStatus) => status === "paused";

export function JobStatusBadge({ status }: { status: FtStatus }) {
  return (
    <span data-testid="job-status" data-status={status}>
      <Badge tone={TONE[status]}>{LABEL[status]}</Badge>
    </span>
  );
}
