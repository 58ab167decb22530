"use client";
// A job's events, newest first, a page at a time ("Load more" for older ones), polled while the
// job runs. A metrics event's message already says its step and losses; the chart draws them.
import { LoadMore } from "@/app/_components/load-more";
import { Badge, Card, EmptyState, ErrorState, Loading } from "@/app/_components/ui";
import { formatUnix, isoOf } from "../../files/file-format";
import { useEventPages } from "../api";
import type { FtEventItem } from "../job-shape";

const TONE = { info: "slate", warn: "amber", error: "red" } as const;

function EventItem({ event }: { event: FtEventItem }) {
  return (
    <li data-testid="job-event" data-event-type={event.type} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 py-2 text-sm">
      <time dateTime={isoOf(event.created_at)} className="w-40 shrink-0 text-xs text-slate-500 tabular-nums">
        {formatUnix(event.created_at)}
      </time>
      <Badge tone={TONE[event.level]}>{event.level}</Badge>
      <span className="min-w-0 flex-1 break-words">{event.message}</span>
    </li>
  );
}

export function EventsCard({ jobId, live }: { jobId: string; live: boolean }) {
  const { query, rows } = useEventPages(jobId, live);
  let body;
  if (query.isError && !query.data) body = <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  else if (query.isPending) body = <Loading label="Loading events…" />;
  else if (!rows.length) body = <EmptyState title="No events yet." />;
  else
    body = (
      <div className="flex flex-col gap-3">
        <ol aria-label="Events, newest first" className="divide-y divide-slate-100">
          {rows.map((e) => (
            <EventItem key={e.id} event={e} />
          ))}
        </ol>
        <LoadMore pages={query} />
      </div>
    );
  return <Card title="Events">{body}</Card>;
}
