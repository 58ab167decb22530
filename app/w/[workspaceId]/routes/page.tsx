"use client";
// Routes: the virtual models callers name as `model` (docs/ROUTING.md): the workspace's own and
// the operator's gateway-wide ones, each with its strategy, targets, conditions and retries, the
// share of calls each target answered in the last hour and its recent fallbacks and failures.
// Every member reads; owners and admins add, edit and remove the workspace's routes.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { may, roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { RouteCard } from "./route-card";
import { RouteEditor, type Draft } from "./route-editor";
import { definitionText, EXAMPLE_ROUTE } from "./route-format";

const NEW_ROUTE: Draft = { text: EXAMPLE_ROUTE, editing: null, override: false };

export default function RoutesPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  // The same roles routes.set and routes.remove allow; the server refuses everyone else anyway.
  const mayManage = may(workspace, "routes.manage");
  const routes = useQuery(trpc.routes.list.queryOptions());
  const activity = useQuery({ ...trpc.routes.activity.queryOptions(), refetchInterval: 15_000 });
  // Each draft opened anew gets a fresh editor (its key), so its text starts from the draft's.
  const [draft, setDraft] = useState({ n: 0, ...NEW_ROUTE });

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Routes"
        description="Names your callers send as model, each sending the call to one of its targets by a strategy, with conditions and fallbacks. Gateway-wide routes are the operator's; a route of this workspace with the same name takes its place."
      />
      {mayManage ? (
        <RouteEditor key={draft.n} draft={draft} onNew={() => setDraft((d) => ({ n: d.n + 1, ...NEW_ROUTE }))} />
      ) : (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-600">
          Your role ({roleName(workspace)}) can see the routes but not change them; owners and admins can.
        </p>
      )}
      {activity.error ? <ErrorState error={activity.error} onRetry={() => void activity.refetch()} /> : null}
      {routes.isPending ? (
        <Loading label="Loading routes…" />
      ) : routes.error ? (
        <ErrorState error={routes.error} onRetry={() => void routes.refetch()} />
      ) : routes.data.length === 0 ? (
        <Card title="Routes">
          <EmptyState title="No routes yet">{mayManage ? "Add one above, then call it by its name as the model." : null}</EmptyState>
        </Card>
      ) : (
        routes.data.map((r) => (
          <RouteCard
            key={`${r.scope}:${r.name}`}
            route={r}
            shares={activity.data?.shares}
            failures={activity.data?.failures}
            mayManage={mayManage}
            onEdit={() => setDraft((d) => ({ n: d.n + 1, text: definitionText(r.definition), editing: r.name, override: r.scope === "global" }))}
          />
        ))
      )}
    </div>
  );
}
