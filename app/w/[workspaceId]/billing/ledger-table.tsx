"use client";
// The ledger: credits and, per UTC day, the charges of the calls; newest first, a page at a time.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { Badge, Button, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";
import { formatDateTime, formatUsd } from "../usage/format";

const PAGE_SIZE = 20;
const TONE = { credit: "green", adjustment: "indigo", charge: "slate" } as const;

export function LedgerTable() {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const ledger = useQuery({ ...trpc.billing.ledger.queryOptions({ page, pageSize: PAGE_SIZE }), placeholderData: keepPreviousData });

  if (ledger.isPending) return <Loading label="Loading the ledger…" />;
  if (ledger.error) return <ErrorState error={ledger.error} onRetry={() => void ledger.refetch()} />;
  return (
    <div className="flex flex-col gap-3">
      {ledger.data.entries.length === 0 ? (
        <EmptyState title="Nothing in the ledger yet">Credits and the charges of calls appear here.</EmptyState>
      ) : (
        <Table caption="Ledger of credits and charges" head={["Date", "Type", "Description", "By", "Amount"]}>
          {ledger.data.entries.map((e) => (
            <tr key={e.id}>
              <Td>
                <time dateTime={e.at}>{formatDateTime(e.at)}</time>
              </Td>
              <Td>
                <Badge tone={TONE[e.kind]}>{e.kind}</Badge>
              </Td>
              <Td className="whitespace-normal">{e.description}</Td>
              <Td>{e.createdBy ? (e.createdBy.name ?? e.createdBy.email) : "—"}</Td>
              <Td className={`text-right tabular-nums ${e.amount.startsWith("-") ? "text-slate-800" : "text-green-700"}`}>
                <span title={`${e.amount} USD`}>{e.amount.startsWith("-") ? formatUsd(e.amount) : `+${formatUsd(e.amount)}`}</span>
              </Td>
            </tr>
          ))}
        </Table>
      )}
      <nav aria-label="Ledger pages" className="flex items-center justify-between gap-2">
        <Button variant="secondary" disabled={page === 1} onClick={() => setPage((p) => p - 1)}>
          Previous
        </Button>
        <span className="text-sm text-slate-600" aria-live="polite">
          Page {page}
        </span>
        <Button variant="secondary" disabled={!ledger.data.hasMore || ledger.isPlaceholderData} onClick={() => setPage((p) => p + 1)}>
          Next
        </Button>
      </nav>
    </div>
  );
}
