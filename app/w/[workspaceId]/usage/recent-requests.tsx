"use client";
// The recent requests of the filter, newest first, a page at a time. The server pages by cursor;
// the cursors of the pages already seen are kept so "Previous" goes back exactly.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { Badge, Button, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { formatDateTime, formatUsd } from "./format";

const PAGE_SIZE = 25;

export function RecentRequests({ filter }: { filter: { apiKeyId?: string; from?: string; to?: string } }) {
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
        <Table caption="Recent requests" head={["Time", "Endpoint", "Model", "Key", "Units", "Cost", "Status", "Latency"]}>
          {events.data.events.map((e) => (
            <tr key={e.id}>
              <Td>
                <time dateTime={e.time} title={`${e.time} · request ${e.id}`}>
                  {formatDateTime(e.time)}
                </time>
              </Td>
              <Td>
                <code className="text-xs">{e.endpoint}</code>
              </Td>
              <Td>{e.modelId}</Td>
              <Td>{e.key ? `${e.key.name ?? "deleted key"} (${e.key.prefix ?? e.key.id}…)` : "Dashboard"}</Td>
              <Td className="whitespace-normal">{e.units}</Td>
              <Td>
                <span title={`${e.cost} USD`}>{formatUsd(e.cost)}</span>
              </Td>
              <Td>
                <Badge tone="green">{e.status}</Badge>
              </Td>
              <Td>{e.latencyMs === null ? "—" : `${e.latencyMs.toLocaleString("en-US")} ms`}</Td>
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
