"use client";
// A webhook's newest deliveries: the event, its status, how many attempts it took, the last answer.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { Badge, EmptyState, ErrorState, Loading, Table, Td } from "@/app/_components/ui";

const TONE = { delivered: "green", pending: "amber", failed: "red" } as const;

export function DeliveriesTable({ webhookId }: { webhookId: string }) {
  const trpc = useTRPC();
  const deliveries = useQuery({ ...trpc.webhooks.deliveries.queryOptions({ webhookId }), refetchInterval: 5000 });
  if (deliveries.isPending) return <Loading label="Loading deliveries…" />;
  if (deliveries.error) return <ErrorState error={deliveries.error} onRetry={() => void deliveries.refetch()} />;
  if (!deliveries.data.length) return <EmptyState title="No deliveries yet" />;
  return (
    <Table caption="Recent deliveries" head={["Event", "Status", "Attempts", "Last answer", "Sent"]}>
      {deliveries.data.map((d) => (
        <tr key={d.id}>
          <Td>
            <code className="font-mono text-xs">{d.type}</code>
            <span className="block max-w-64 truncate text-xs text-slate-500" title={d.event_id}>
              {d.event_id}
            </span>
          </Td>
          <Td>
            <Badge tone={TONE[d.status]}>{d.status}</Badge>
          </Td>
          <Td>{d.attempts}</Td>
          <Td>
            <span className="block max-w-64 truncate" title={d.last_error ?? undefined}>
              {d.last_error ?? (d.last_status === null ? "—" : String(d.last_status))}
            </span>
          </Td>
          <Td>{new Date((d.delivered_at ?? d.created_at) * 1000).toLocaleString()}</Td>
        </tr>
      ))}
    </Table>
  );
}
