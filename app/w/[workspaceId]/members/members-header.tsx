"use client";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui";
import { useWorkspace } from "@/app/_components/workspace-context";
import { can } from "@/server/identity/workspaces/permissions";

export function MembersHeader() {
  const { workspace } = useWorkspace();
  return (
    <PageHeader
      title="Members"
      description={
        can(workspace.role, "members.manage") ? (
          <>People in {workspace.name} and their roles. Owners and admins invite, change roles and remove members; only owners manage owners.</>
        ) : (
          <>
            People in {workspace.name}. Your role ({workspace.role}) can see members but not change them. To leave, go to{" "}
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
