"use client";
import { useQuery } from "@tanstack/react-query";
import { Badge, Card, EmptyState, ErrorState, Loading, PageHeader, Table, Td } from "@/app/_components/ui";
import { useTRPC } from "@/app/_trpc/client";

const REFRESH_MS = 5000;

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold" data-testid={`stat-${label.toLowerCase().replaceAll(" ", "-")}`}>
        {value}
      </dd>
    </div>
  );
}

export default function NetworkPage() {
  const trpc = useTRPC();
  const status = useQuery(trpc.network.status.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  const models = useQuery(trpc.models.list.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  const data = status.data;
  return (
    <>
      <PageHeader title="Network status" description={`Nodes online, their regions, and the models ready to serve now. Refreshes every ${REFRESH_MS / 1000} seconds.`} />
      {status.error ? (
        <ErrorState error={status.error} onRetry={() => void status.refetch()} />
      ) : status.isLoading || !data ? (
        <Loading label="Loading network status…" />
      ) : (
        <div className="flex flex-col gap-6">
          <dl className="grid gap-4 sm:grid-cols-3">
            <Stat label="Nodes online" value={data.nodesOnline} />
            <Stat label="Regions" value={data.regions.length} />
            <Stat label="Models available" value={data.modelsAvailable} />
          </dl>
          <Card title="Regions">
            {data.regions.length === 0 ? (
              <EmptyState title="No node is online right now." />
            ) : (
              <Table caption="Regions with nodes online" head={["City", "Country", "Nodes online", "Last checked"]}>
                {data.regions.map((r) => (
                  <tr key={`${r.country}/${r.city}`}>
                    <Td>{r.city}</Td>
                    <Td>{r.country}</Td>
                    <Td>{r.nodes}</Td>
                    <Td>{r.updatedAt ? new Date(r.updatedAt).toLocaleTimeString() : "—"}</Td>
                  </tr>
                ))}
              </Table>
            )}
          </Card>
          <Card title="Models ready now, by type and capability">
            {Object.keys(data.capabilities).length === 0 ? (
              <EmptyState title="No model is ready to serve right now." />
            ) : (
              <ul className="flex flex-wrap gap-2" aria-label="Available models by type and capability">
                {Object.entries(data.capabilities)
                  .sort(([a], [b]) => a.localeCompare(b))
                  .map(([name, count]) => (
                    <li key={name}>
                      <Badge tone="indigo">
                        {name.replaceAll("_", " ")}: {count}
                      </Badge>
                    </li>
                  ))}
              </ul>
            )}
          </Card>
          <Card title="Model availability">
            {models.error ? (
              <ErrorState error={models.error} onRetry={() => void models.refetch()} />
            ) : !models.data ? (
              <Loading label="Loading models…" />
            ) : models.data.data.length === 0 ? (
              <EmptyState title="The catalog is empty." />
            ) : (
              <Table caption="Model availability" head={["Model", "Type", "Status"]}>
                {models.data.data.map((m) => (
                  <tr key={m.id} data-testid="model-availability" data-model-id={m.id}>
                    <Td className="font-mono">{m.id}</Td>
                    <Td>{m.type}</Td>
                    <Td>{m.ready_now ? <Badge tone="green">available</Badge> : <Badge tone="amber">no node online</Badge>}</Td>
                  </tr>
                ))}
              </Table>
            )}
          </Card>
          <p className="text-xs text-slate-500">
            Client location: {data.legal.geoip === "disabled" ? "the gateway does not geolocate callers and restricts no region." : data.legal.geoip}
          </p>
        </div>
      )}
    </>
  );
}
