"use client";
// Plans: what the workspace sells its end users (models, rate limits, spend caps, token
// lifetime), their alive sessions, the budgets of keys and subjects, and the identity providers
// it trusts. Owners and admins change them; everyone else reads.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { can } from "@/server/identity/workspaces/permissions";
import { useTRPC } from "@/app/_trpc/client";
import { roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { Budgets } from "./budgets";
import { Issuers } from "./issuers";
import { PlanForm } from "./plan-form";
import { PlanSessions } from "./plan-sessions";
import { PlansTable } from "./plans-table";

export default function PlansPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const mayManage = can(workspace, "plans.manage");
  const plans = useQuery(trpc.plans.list.queryOptions());
  const [editing, setEditing] = useState<string | null>(null);
  const [sessionsOf, setSessionsOf] = useState<string | null>(null);
  const list = plans.data ?? [];
  const editPlan = list.find((p) => p.id === editing);
  const sessionsPlan = list.find((p) => p.id === sessionsOf);
  const planNames = new Map(list.map((p) => [p.id, p.name]));

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Plans"
        description="What end users get through session tokens, and keys put on a plan: models, rate limits, daily and monthly spend caps."
      />
      {mayManage ? (
        <PlanForm />
      ) : (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-600">
          Your role ({roleName(workspace)}) can see the plans but not change them or revoke sessions.
        </p>
      )}
      <Card title="Plans">
        {plans.isPending ? (
          <Loading label="Loading plans…" />
        ) : plans.error ? (
          <ErrorState error={plans.error} onRetry={() => void plans.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState title="No plans yet">{mayManage ? "Create one above, then mint session tokens under it or put keys on it." : null}</EmptyState>
        ) : (
          <PlansTable
            plans={list}
            mayManage={mayManage}
            sessionsOf={sessionsOf}
            onEdit={(id) => setEditing((e) => (e === id ? null : id))}
            onSessions={(id) => setSessionsOf((s) => (s === id ? null : id))}
          />
        )}
      </Card>
      {editPlan && mayManage ? <PlanForm key={editPlan.id} plan={editPlan} onDone={() => setEditing(null)} /> : null}
      {sessionsPlan ? <PlanSessions key={sessionsPlan.id} plan={sessionsPlan} mayManage={mayManage} /> : null}
      <Budgets planNames={planNames} />
      <Issuers plans={list} mayManage={mayManage} />
    </div>
  );
}
