"use client";
// The recent requests of the filter, newest first, a page at a time. The server pages by cursor;
// the cursors of the pages already seen are kept so "Previous" goes back exactly.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { Badge, Button, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { formatDate, formatUsd } from "./format";
import { RequestCaller } from "./request-caller";
import type { UsageFilterInput } from "./usage-filters";

const PAGE_SIZE = 25;

export function RecentRequests({ filter, onSubject }: { filter: UsageFilterInput; onSubject: (subject: string) => void }) {
  const trpc = useTRPC();
  // cursors[i] opens page i; page 0 has none. The parent remounts this list when the filter changes.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const page = cursors.length - 1;
  const events = useQuery(trpc.usage.events.queryOptions({ ...filter, limit: PAGE_SIZE, cursor: cursors[page] }));

  return (
    <div className="flex flex-col gap-3">
      {events.isPending ? (
        <Loading label="Loading requests…" />
      ) : events.error ? (
        <ErrorState error={events.error} onRetry={() => void events.refetch()} />
      ) : events.data.events.length === 0 ? (
        <EmptyState title="No requests in this range">Calls made with this workspace&apos;s keys appear here once they are billed.</EmptyState>
      ) : (
        <Table caption="Recent requests" head={["Time", "Request", "Caller", "Units", "Cost", "Status"]}>
          {events.data.events.map((e) => (
            <tr key={e.id}>
              <Td>
                <time dateTime={e.time} title={`${e.time} · request ${e.id}`}>
                  {formatDate(e.time)}
                  <span className="block text-xs text-slate-500">{new Date(e.time).toLocaleTimeString(undefined, { timeStyle: "medium" })}</span>
                </time>
              </Td>
              <Td>
                <span className="block max-w-48 truncate" title={e.modelId}>
                  {e.modelId}
                </span>
                <code className="text-xs text-slate-500">{e.endpoint}</code>
              </Td>
              <Td>
                <RequestCaller e={e} onSubject={onSubject} />
              </Td>
              <Td className="min-w-24 whitespace-normal">{e.units}</Td>
              <Td>
                <span title={`${e.cost} USD`}>{formatUsd(e.cost)}</span>
                {e.cacheHit ? (
                  <span className="block text-xs text-emerald-700" title={`Answered from the response cache; ${e.cacheSaved} USD saved`}>
                    cache hit, saved {formatUsd(e.cacheSaved)}
                  </span>
                ) : null}
              </Td>
              <Td>
                <Badge tone="green">{e.status}</Badge>
                <span className="block text-xs text-slate-500" title="Latency">
                  {e.latencyMs === null ? "—" : `${e.latencyMs.toLocaleString("en-US")} ms`}
                </span>
              </Td>
            </tr>
          ))}
        </Table>
      )}
      <nav aria-label="Recent requests pages" className="flex items-center justify-between gap-2">
        <Button variant="secondary" disabled={page === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous
        </Button>
        <span className="text-sm text-slate-600" aria-live="polite">
          Page {page + 1}
        </span>
        <Button
          variant="secondary"
          disabled={!events.data?.nextCursor}
          onClick={() => events.data?.nextCursor && setCursors((c) => [...c, events.data.nextCursor!])}
        >
          Next
        </Button>
      </nav>
    </div>
  );
}
