"use client";
// One route as written (whose it is, strategy, targets with weights and pinned nodes, conditions,
// retry policy) and what it did lately. Owners and admins edit and remove the workspace's own
// routes; a gateway-wide route can only be overridden by a workspace route of the same name.
import type { RouteView } from "@/server/routing/routes/route-store";
import type { RouteFailure, RouteShare } from "@/server/routing/routes/route-stats";
import { Badge, Button, Card, Loading, Table, Td } from "@/app/_components/ui";
import { RemoveRouteButton } from "./remove-route-button";
import { RouteFailures, RouteShares } from "./route-activity";
import { describeRetry, describeTimeouts, formatPercent, type RouteDefinition } from "./route-format";

function Targets({ def }: { def: RouteDefinition }) {
  const totalWeight = def.targets.reduce((sum, t) => sum + t.weight, 0);
  return (
    <Table caption={`Targets of ${def.name}`} head={["Model", "Pinned node", "Weight", "Timeouts"]}>
      {def.targets.map((t, i) => (
        <tr key={i} data-testid="route-target">
          <Td>
            <code className="font-mono text-xs">{t.model}</code>
          </Td>
          <Td>{t.node ? <code className="font-mono text-xs">{t.node}</code> : <span className="text-slate-500">any</span>}</Td>
          <Td className="tabular-nums">
            {t.weight}
            {def.strategy === "weighted" && totalWeight ? <span className="text-slate-500"> ({formatPercent((t.weight * 100) / totalWeight)})</span> : null}
          </Td>
          <Td>{describeTimeouts(t)}</Td>
        </tr>
      ))}
    </Table>
  );
}

function Settings({ def }: { def: RouteDefinition }) {
  return (
    <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      <dt className="font-medium text-slate-700">Conditions</dt>
      <dd>
        {def.conditions.length ? (
          <ol className="flex flex-col gap-1">
            {def.conditions.map((c, i) => (
              <li key={i} className="break-words">
                when <code className="font-mono text-xs">{c.when}</code> → <code className="font-mono text-xs">{c.use}</code>
              </li>
            ))}
          </ol>
        ) : (
          <span className="text-slate-500">none</span>
        )}
      </dd>
      <dt className="font-medium text-slate-700">Retries</dt>
      <dd>{describeRetry(def)}</dd>
      <dt className="font-medium text-slate-700">Longest wait for a rate limit</dt>
      <dd>{def.max_wait_ms} ms</dd>
      {def.strategy === "least-latency" ? (
        <>
          <dt className="font-medium text-slate-700">Exploration</dt>
          <dd>{formatPercent(def.exploration * 100)} of calls try another target</dd>
        </>
      ) : null}
      <dt className="font-medium text-slate-700">Caller&apos;s region first</dt>
      <dd>{def.prefer_region ? "yes" : "no"}</dd>
    </dl>
  );
}

type Props = { route: RouteView; shares: RouteShare[] | undefined; failures: RouteFailure[] | undefined; mayManage: boolean; onEdit: () => void };

export function RouteCard({ route, shares, failures, mayManage, onEdit }: Props) {
  const def = route.definition;
  const own = route.scope === "workspace";
  return (
    <Card
      className="min-w-0"
      title={
        <span className="flex flex-wrap items-center gap-2">
          <code className="font-mono">{route.name}</code>
          <Badge tone={own ? "indigo" : "slate"}>{own ? "this workspace" : "gateway-wide"}</Badge>
          <Badge>{def.strategy}</Badge>
        </span>
      }
      actions={
        mayManage ? (
          <div className="flex flex-wrap items-center gap-2">
            <Button variant="secondary" onClick={onEdit} aria-label={own ? `Edit the route ${route.name}` : `Override the route ${route.name} in this workspace`}>
              {own ? "Edit" : "Override"}
            </Button>
            {own ? <RemoveRouteButton name={route.name} /> : null}
          </div>
        ) : null
      }
    >
      <div className="flex flex-col gap-4" data-testid="route" data-route-name={route.name}>
        {def.description ? <p className="text-sm text-slate-600">{def.description}</p> : null}
        <Targets def={def} />
        <Settings def={def} />
        <div>
          <h3 className="mb-2 text-sm font-semibold">Last hour</h3>
          {shares ? <RouteShares route={route.name} shares={shares} /> : <Loading label="Loading activity…" />}
        </div>
        <div>
          <h3 className="mb-2 text-sm font-semibold">Recent fallbacks and failures</h3>
          {failures ? <RouteFailures route={route.name} failures={failures} /> : <Loading label="Loading activity…" />}
        </div>
      </div>
    </Card>
  );
}
