"use client";
import { PageHeader } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { BatchList } from "./batch-list";

export default function BatchesPage() {
  const { workspace } = useWorkspace();
  // Cancelling stops model calls the workspace pays for: the roles that may call models may; billing may not.
  const canCancel = may(workspace, "models.call");
  return (
    <>
      <PageHeader
        title="Batches"
        description="Files of requests run in the background within 24 hours, each line billed at the model's batch price. Download a batch's output and error files once it ends."
      />
      <BatchList workspaceId={workspace.id} canCancel={canCancel} />
    </>
  );
}
