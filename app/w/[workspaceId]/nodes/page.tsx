"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Card, EmptyState, ErrorState, Loading, PageHeader } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { useTRPC } from "@/app/_trpc/client";
import { AddNodeForm } from "./add-node-form";
import { EditNodePanel } from "./edit-node-panel";
import { NodeTable } from "./node-table";
import { PriceModels } from "./price-models";

function NodesAdmin() {
  const trpc = useTRPC();
  // Health checks run in the background: refresh to show their results.
  const nodes = useQuery(trpc.nodes.list.queryOptions(undefined, { refetchInterval: 5000 }));
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = nodes.data?.find((n) => n.id === editingId);
  let body;
  if (nodes.error) body = <ErrorState error={nodes.error} onRetry={() => void nodes.refetch()} />;
  else if (nodes.isLoading) body = <Loading label="Loading nodes…" />;
  else if (!nodes.data?.length) body = <EmptyState title="No nodes yet.">Add the first node below.</EmptyState>;
  else body = <NodeTable nodes={nodes.data} onEdit={(n) => setEditingId(n.id)} />;
  return (
    <div className="flex flex-col gap-6">
      <Card title="Nodes">{body}</Card>
      <PriceModels />
      {editing ? <EditNodePanel key={editing.id} node={editing} onDone={() => setEditingId(null)} /> : null}
      <AddNodeForm />
    </div>
  );
}

export default function NodesPage() {
  const { session } = useWorkspace();
  return (
    <>
      <PageHeader title="Nodes" description="The servers that run the models: their health, region and the models each serves." />
      {session.user.isOperator ? (
        <NodesAdmin />
      ) : (
        <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          Only gateway operators can see and manage nodes. The network&apos;s overall status is on the Network status page.
        </p>
      )}
    </>
  );
}
