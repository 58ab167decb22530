// A batch's status as a badge, and how far its lines have got while it runs.
import { Badge } from "@/app/_components/ui";
import type { BatchObject } from "@/server/batches/schema";

type Status = BatchObject["status"];

const TONE = {
  validating: "amber",
  in_progress: "amber",
  finalizing: "amber",
  cancelling: "amber",
  completed: "green",
  failed: "red",
  expired: "red",
  cancelled: "slate",
} as const satisfies Record<Status, string>;

const LABEL = {
  validating: "Validating",
  in_progress: "In progress",
  finalizing: "Finalizing",
  cancelling: "Cancelling",
  completed: "Completed",
  failed: "Failed",
  expired: "Expired",
  cancelled: "Cancelled",
} as const satisfies Record<Status, string>;

/** Statuses after which nothing changes: the list stops polling once every batch has one. */
const ENDED: readonly Status[] = ["completed", "failed", "expired", "cancelled"];
export const isRunning = (status: Status) => !ENDED.includes(status);

/** Only a batch that is validating or running its lines may be cancelled (the API answers 409 otherwise). */
export const isCancellable = (status: Status) => status === "validating" || status === "in_progress";

export function BatchStatusBadge({ status }: { status: Status }) {
  return <Badge tone={TONE[status]}>{LABEL[status]}</Badge>;
}

/** "completed / failed / total", with a bar of the lines done while the batch runs. */
export function RequestCounts({ batch }: { batch: BatchObject }) {
  const { total, completed, failed } = batch.request_counts;
  const done = completed + failed;
  const percent = total > 0 ? Math.round((done / total) * 100) : 0;
  return (
    <div className="flex flex-col gap-1">
      <span data-testid="request-counts" className="tabular-nums" title={`${completed} completed, ${failed} failed, of ${total}`}>
        {completed} / {failed} / {total}
      </span>
      {isRunning(batch.status) && total > 0 ? (
        <div
          role="progressbar"
          aria-label={`Progress of ${batch.id}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          className="h-1.5 w-24 overflow-hidden rounded-full bg-slate-200"
        >
          <div className="h-full bg-amber-500 transition-[width]" style={{ width: `${percent}%` }} />
        </div>
      ) : null}
    </div>
  );
}
