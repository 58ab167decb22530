"use client";
// The log of the filter, newest first, "Load more" a page at a time: the server pages by a keyset
// cursor (the last row's time and id), so calls logged meanwhile never shift the rows shown.
import { LoadMore } from "@/app/_components/load-more";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { KeyView } from "@/server/identity/keys/key-view";
import type { LogEntry } from "@/server/request-log/list-logs";
import { EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";
import { formatCount, formatUsd } from "../usage/format";
import { callerLabel, formatMs } from "./log-format";
import { StatusBadge } from "./status-badge";
import type { LogListInput } from "./use-log-filter";

const PAGE_SIZE = 50;

function Tags({ tags }: { tags: Record<string, string> }) {
  const entries = Object.entries(tags);
  if (!entries.length) return <span className="text-slate-400">—</span>;
  return (
    <span className="flex max-w-56 flex-wrap gap-1">
      {entries.map(([k, v]) => (
        <code key={k} className="rounded bg-slate-100 px-1 text-xs text-slate-700">
          {k}={v}
        </code>
      ))}
    </span>
  );
}

export function LogsTable({ filter, keys, onOpen }: { filter: LogListInput; keys: KeyView[]; onOpen: (entry: LogEntry) => void }) {
  const trpc = useTRPC();
  const logs = useInfiniteQuery(trpc.logs.list.infiniteQueryOptions({ ...filter, limit: PAGE_SIZE }, { getNextPageParam: (last) => last.next_cursor ?? undefined }));
  if (logs.isPending) return <Loading label="Loading the log…" />;
  if (logs.isError) return <ErrorState error={logs.error} onRetry={() => void logs.refetch()} />;
  const rows = logs.data.pages.flatMap((p) => p.logs);
  if (!rows.length) return <EmptyState title="No requests match">Every /v1 call of this workspace, served, refused or failed, shows here a moment after it is answered.</EmptyState>;
  return (
    <div className="flex flex-col gap-3">
      <Table caption="Request log" head={["Time", "Status", "Route", "Model", "Key / subject", "Duration", "Tokens", "Cost", "Tags"]}>
        {rows.map((e) => (
          <tr key={e.request_id} data-request-id={e.request_id} className="hover:bg-slate-50">
            <Td>
              <button
                type="button"
                onClick={() => onOpen(e)}
                title={`${e.created_at} · request ${e.request_id}: show the details`}
                className="text-left text-indigo-700 underline decoration-dotted hover:text-indigo-500"
              >
                <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })}</time>
              </button>
            </Td>
            <Td>
              <StatusBadge status={e.status} code={e.error_code} />
            </Td>
            <Td>
              <code className="text-xs" title={`${e.method} ${e.route}`}>
                {e.route}
              </code>
            </Td>
            <Td>
              <span className="block max-w-40 truncate" title={e.model ?? undefined}>
                {e.model ?? "—"}
              </span>
            </Td>
            <Td>
              <span className="block max-w-40 truncate" title={callerLabel(e, keys)}>
                {callerLabel(e, keys)}
              </span>
            </Td>
            <Td>{formatMs(e.duration_ms)}</Td>
            <Td>
              <span title={`${formatCount(e.input_tokens)} input, ${formatCount(e.output_tokens)} output${e.usage_estimated ? " (counted by the gateway)" : ""}`}>
                {formatCount(e.input_tokens + e.output_tokens)}
              </span>
            </Td>
            <Td>{e.cost === null ? "—" : <span title={`${e.cost} USD`}>{formatUsd(e.cost)}</span>}</Td>
            <Td className="whitespace-normal">
              <Tags tags={e.tags} />
            </Td>
          </tr>
        ))}
      </Table>
      <LoadMore pages={logs} />
    </div>
  );
}
