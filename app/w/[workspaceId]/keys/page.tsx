"use client";
// API keys: create (the secret is shown once, optionally on a plan), list, revoke, switch plans.
// Members without keys.create (the billing role) see the list read-only.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { can } from "@/server/identity/workspaces/permissions";
import { useTRPC } from "@/app/_trpc/client";
import { roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { CreateKeyForm } from "./create-key-form";
import { KeysTable } from "./keys-table";
import { NewKeySecret } from "./new-key-secret";

export default function KeysPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const keys = useQuery(trpc.keys.list.queryOptions());
  const plans = useQuery(trpc.plans.list.queryOptions());
  const planOptions = (plans.data ?? []).map((p) => ({ id: p.id, name: p.name }));
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const mayCreate = can(workspace, "keys.create");

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="API keys"
        description="Keys authenticate calls to the /v1 API and bill them to this workspace. Only a key's first characters are kept for display."
      />
      {created ? <NewKeySecret name={created.name} secret={created.secret} onDone={() => setCreated(null)} /> : null}
      {mayCreate ? (
        <CreateKeyForm onCreated={setCreated} plans={can(workspace, "keys.manage") ? planOptions : []} />
      ) : (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-600">
          Your role ({roleName(workspace)}) can see the keys but not create or revoke them.
        </p>
      )}
      {plans.error ? <p className="text-xs text-red-700">Could not load the plans: {plans.error.message}</p> : null}
      <Card title="Keys">
        {keys.isPending ? (
          <Loading label="Loading keys…" />
        ) : keys.error ? (
          <ErrorState error={keys.error} onRetry={() => void keys.refetch()} />
        ) : keys.data.length === 0 ? (
          <EmptyState title="No API keys yet">{mayCreate ? "Create one above to call the API." : null}</EmptyState>
        ) : (
          <KeysTable keys={keys.data} plans={planOptions} />
        )}
      </Card>
    </div>
  );
}
