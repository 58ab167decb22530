"use client";
// The workspace's batches, newest first, a page at a time; polled every 2 s while any batch shown
// has not ended, so counts, cost and output links appear without a reload.
import { LoadMore } from "@/app/_components/load-more";
import { Card, ErrorState, Loading, Table } from "@/app/_components/ui";
import { useTRPC, useTRPCClient } from "@/app/_trpc/client";
import { useAfterPages } from "../files/use-after-pages";
import { BATCH_COLUMNS, BatchRow } from "./batch-row";
import { BatchesEmpty } from "./batches-empty";
import { isRunning } from "./batch-status";

const PAGE_SIZE = 50;

export function BatchList({ workspaceId, canCancel }: { workspaceId: string; canCancel: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const input = { limit: PAGE_SIZE };
  const { query, rows } = useAfterPages({
    queryKey: [...trpc.batches.list.pathKey(), { input, type: "infinite" }],
    fetchPage: (after) => client.batches.list.query({ ...input, after }),
    pollWhile: (batches) => (batches.some((b) => isRunning(b.status)) ? 2000 : false),
  });

  let body;
  if (query.isError && !query.data) body = <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  else if (query.isPending) body = <Loading label="Loading batches…" />;
  else if (!rows.length) body = <BatchesEmpty />;
  else
    body = (
      <div className="flex flex-col gap-3">
        <Table caption="Batches" head={BATCH_COLUMNS}>
          {rows.map((b) => (
            <BatchRow key={b.id} batch={b} workspaceId={workspaceId} canCancel={canCancel} />
          ))}
        </Table>
        <LoadMore pages={query} />
        {/* A later page or a refresh failed: the rows already shown stay. */}
        {query.isError ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : null}
      </div>
    );
  return <Card title="Batches">{body}</Card>;
}
