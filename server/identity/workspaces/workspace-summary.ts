// What the dashboard shows about the workspace it is in: its name, the caller's standing (role,
// custom role, permissions) and how many members it has. Scoped to the principal's workspace;
// membership was checked upstream.
import { z } from "zod";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import type { Principal } from "../principal";
import { ZMemberStanding } from "./my-workspaces";
import { permissionsOf } from "./permissions";
import { ZWorkspaceName } from "./rename-workspace";

export const ZNewWorkspaceInput = z.object({ name: ZWorkspaceName });
export type NewWorkspaceInput = z.input<typeof ZNewWorkspaceInput>;

export const ZWorkspaceSummary = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string(), members: z.number().int() })
  .extend(ZMemberStanding.shape);
export type WorkspaceSummary = z.infer<typeof ZWorkspaceSummary>;

export async function workspaceSummary(member: Extract<Principal, { kind: "user" }>): Promise<WorkspaceSummary> {
  const row = await db.workspace.findUnique({
    where: { id: member.workspaceId },
    select: { id: true, name: true, createdAt: true, _count: { select: { memberships: { where: { active: true } } } } },
  });
  if (!row) throw errors.notFound("No such workspace.", "workspace_not_found");
  return {
    id: row.id,
    name: row.name,
    role: member.role,
    customRole: member.customRole ?? null,
    permissions: permissionsOf(member),
    createdAt: row.createdAt.toISOString(),
    members: row._count.memberships,
  };
}
