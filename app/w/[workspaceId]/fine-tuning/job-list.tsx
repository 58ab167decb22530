"use client";
// The workspace's fine-tuning jobs, newest first, a page at a time; polled every 2 s while any job
// shown has not ended, so statuses, trained tokens and tuned models appear without a reload.
import { LoadMore } from "@/app/_components/load-more";
import { Card, ErrorState, Loading, Table } from "@/app/_components/ui";
import { useJobMoney, useJobs } from "./api";
import { isLive } from "./job-status";
import { JOB_COLUMNS, JobRow } from "./job-row";
import { JobsEmpty } from "./jobs-empty";

export function JobList({ workspaceId, baseModel }: { workspaceId: string; baseModel: string | null }) {
  const { query, rows } = useJobs((jobs) => jobs.some((j) => isLive(j.status)));
  const money = useJobMoney(
    rows,
    rows.some((j) => isLive(j.status)),
  );

  let body;
  if (query.isError && !query.data) body = <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  else if (query.isPending) body = <Loading label="Loading fine-tuning jobs…" />;
  else if (!rows.length) body = <JobsEmpty baseModel={baseModel} />;
  else
    body = (
      <div className="flex flex-col gap-3">
        <Table caption="Fine-tuning jobs" head={JOB_COLUMNS}>
          {rows.map((job) => (
            <JobRow key={job.id} job={job} money={money.get(job.id)} workspaceId={workspaceId} />
          ))}
        </Table>
        <LoadMore pages={query} />
        {query.isError ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : null}
      </div>
    );
  return <Card title="Jobs">{body}</Card>;
}
