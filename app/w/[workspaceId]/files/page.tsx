"use client";
import { PageHeader } from "@/app/_components/ui";
import { may, useWorkspace } from "@/app/_components/workspace-context";
import { FilesTable } from "./files-table";

export default function FilesPage() {
  const { workspace } = useWorkspace();
  // The billing role sees and downloads files; changing them is for those who use the API.
  const canDelete = may(workspace, "models.call");
  return (
    <>
      <PageHeader
        title="Files"
        description="Files uploaded through the API (POST /v1/files), and the output and error files the gateway writes for batches. Files with an expiry are deleted when it passes."
      />
      <FilesTable workspaceId={workspace.id} canDelete={canDelete} />
    </>
  );
}
