"use client";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui";
import { roleName, useWorkspace } from "@/app/_components/workspace-context";
import { can } from "@/server/identity/workspaces/permissions";

export function MembersHeader() {
  const { workspace } = useWorkspace();
  return (
    <PageHeader
      title="Members"
      description={
        can(workspace, "members.manage") ? (
          <>People in {workspace.name} and their roles. Owners and admins invite, change roles and remove members; only owners manage owners.</>
        ) : (
          <>
            People in {workspace.name}. Your role ({roleName(workspace)}) can see members but not change them. To leave, go to{" "}
            <Link className="text-indigo-700 underline" href={`/w/${workspace.id}/settings`}>
              Settings
            </Link>
            .
          </>
        )
      }
    />
  );
}
