"use client";
// Webhooks: where the workspace's alerts are POSTed (docs/ALERTS.md). Owners and admins add and
// remove them; the signing secret is shown once, right after a webhook is added or its secret is
// rotated. Each webhook lists its recent deliveries with their attempts.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { may, roleName, useWorkspace } from "@/app/_components/workspace-context";
import { Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { AddWebhookForm } from "./add-webhook-form";
import { WebhookSecret } from "./webhook-secret";
import { WebhooksTable } from "./webhooks-table";

export default function WebhooksPage() {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const mayManage = may(workspace, "webhooks.manage");
  const hooks = useQuery({ ...trpc.webhooks.list.queryOptions(), enabled: mayManage });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Webhooks"
        description="Alerts POSTed as signed JSON to your URLs: low balance, spend thresholds, budget refusals, nodes going down and up, failed videos."
      />
      {!mayManage ? (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-600">Only owners and admins manage webhooks (your role: {roleName(workspace)}).</p>
      ) : (
        <>
          {secret ? <WebhookSecret url={secret.url} secret={secret.secret} onDone={() => setSecret(null)} /> : null}
          <AddWebhookForm onCreated={setSecret} />
          <Card title="Webhooks">
            {hooks.isPending ? (
              <Loading label="Loading webhooks…" />
            ) : hooks.error ? (
              <ErrorState error={hooks.error} onRetry={() => void hooks.refetch()} />
            ) : hooks.data.length === 0 ? (
              <EmptyState title="No webhooks yet">Add one above to be told of events as they happen.</EmptyState>
            ) : (
              <WebhooksTable hooks={hooks.data} onRotated={setSecret} />
            )}
          </Card>
        </>
      )}
    </div>
  );
}
