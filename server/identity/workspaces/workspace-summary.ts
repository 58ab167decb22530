// What the dashboard shows about the workspace it is in: its name, the caller's role and how
// many members it has. Scoped to the principal's workspace; membership was checked upstream.
import { z } from "zod";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import type { Role } from "../../generated/prisma/enums";
import { ROLES } from "./permissions";
import { ZWorkspaceName } from "./rename-workspace";

export const ZNewWorkspaceInput = z.object({ name: ZWorkspaceName });
export type NewWorkspaceInput = z.input<typeof ZNewWorkspaceInput>;

export const ZWorkspaceSummary = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  createdAt: z.string(),
  members: z.number().int(),
});
export type WorkspaceSummary = z.infer<typeof ZWorkspaceSummary>;

export async function workspaceSummary(workspaceId: string, role: Role): Promise<WorkspaceSummary> {
  const row = await db.workspace.findUnique({
    where: { id: workspaceId },
    select: { id: true, name: true, createdAt: true, _count: { select: { memberships: true } } },
  });
  if (!row) throw errors.notFound("No such workspace.", "workspace_not_found");
  return { id: row.id, name: row.name, role, createdAt: row.createdAt.toISOString(), members: row._count.memberships };
}
