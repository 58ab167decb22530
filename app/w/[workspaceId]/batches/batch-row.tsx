"use client";
// One batch in the table, and under it, for a batch that failed, the errors of its input file
// (line and message) as the API reports them.
import { Td } from "@/app/_components/ui";
import type { BatchObject } from "@/server/batches/schema";
import { fileContentHref, formatUnix, formatUnixDate, formatUnixTime, isoOf } from "../files/file-format";
import { BatchStatusBadge, isCancellable, RequestCounts } from "./batch-status";
import { CancelBatchButton } from "./cancel-batch-button";

export const BATCH_COLUMNS = ["Batch / endpoint", "Status", "Done / failed / total", "Cost", "Created", "Files"];

function FileLink({ workspaceId, fileId, label, batchId }: { workspaceId: string; fileId: string; label: string; batchId: string }) {
  return (
    <a
      href={fileContentHref(workspaceId, fileId)}
      download
      aria-label={`Download the ${label.toLowerCase()} file of ${batchId}`}
      title={fileId}
      className="text-sm font-medium text-indigo-700 underline hover:text-indigo-900"
    >
      {label}
    </a>
  );
}

export function BatchRow({ batch, workspaceId, canCancel }: { batch: BatchObject; workspaceId: string; canCancel: boolean }) {
  const errors = batch.errors?.data ?? [];
  return (
    <>
      <tr data-testid="batch-row" data-batch-id={batch.id} data-status={batch.status} className="hover:bg-slate-50">
        <Td>
          <span className="block font-mono text-xs">{batch.id}</span>
          <code className="text-xs text-slate-500">{batch.endpoint}</code>
          {batch.metadata && Object.keys(batch.metadata).length ? (
            <span className="mt-1 flex max-w-56 flex-wrap gap-1">
              {Object.entries(batch.metadata).map(([k, v]) => (
                <code key={k} className="rounded bg-slate-100 px-1 text-xs text-slate-700">
                  {k}={v}
                </code>
              ))}
            </span>
          ) : null}
        </Td>
        <Td>
          <div className="flex flex-col items-start gap-1">
            <BatchStatusBadge status={batch.status} />
            {canCancel && isCancellable(batch.status) ? <CancelBatchButton id={batch.id} /> : null}
          </div>
        </Td>
        <Td>
          <RequestCounts batch={batch} />
        </Td>
        <Td>
          {/* The exact decimal string the API answers: a batch's lines cost fractions of a cent. */}
          <span data-testid="batch-cost" className="tabular-nums" title={`${batch.cost} USD`}>
            ${batch.cost}
          </span>
        </Td>
        <Td>
          {/* Date over time: the row keeps every column in view at 1280 px, whatever the cost's length. */}
          <time dateTime={isoOf(batch.created_at)} title={formatUnix(batch.created_at)} className="flex flex-col">
            <span>{formatUnixDate(batch.created_at)}</span>
            <span className="text-xs text-slate-500">{formatUnixTime(batch.created_at)}</span>
          </time>
        </Td>
        <Td>
          <div className="flex gap-3">
            {batch.output_file_id ? <FileLink workspaceId={workspaceId} fileId={batch.output_file_id} label="Output" batchId={batch.id} /> : null}
            {batch.error_file_id ? <FileLink workspaceId={workspaceId} fileId={batch.error_file_id} label="Errors" batchId={batch.id} /> : null}
            {!batch.output_file_id && !batch.error_file_id ? <span className="text-slate-400">—</span> : null}
          </div>
        </Td>
      </tr>
      {batch.status === "failed" && errors.length ? (
        <tr data-testid="batch-errors" data-batch-id={batch.id}>
          <td colSpan={BATCH_COLUMNS.length} className="px-3 pb-3">
            <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
              <p className="font-medium">The input file was refused:</p>
              <ul className="mt-1 list-disc pl-5">
                {errors.map((e, i) => (
                  <li key={i}>
                    {e.line !== null && !e.message.startsWith(`Line ${e.line}`) ? <span className="font-medium">Line {e.line}: </span> : null}
                    {e.message}
                    <span className="ml-1 font-mono text-xs">({e.code}{e.param ? `, ${e.param}` : ""})</span>
                  </li>
                ))}
              </ul>
            </div>
          </td>
        </tr>
      ) : null}
    </>
  );
}
