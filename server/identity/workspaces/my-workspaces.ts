import { z } from "zod";
import { db } from "../../infra/db/client";
import { ROLES } from "./permissions";

export const ZMyWorkspace = z.object({ id: z.string(), name: z.string(), role: z.enum(ROLES) });
export type MyWorkspace = z.infer<typeof ZMyWorkspace>;

/** The workspaces a user belongs to, oldest membership first, with their role in each. */
export async function myWorkspaces(userId: string): Promise<MyWorkspace[]> {
  const rows = await db.membership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true } } },
  });
  return rows.map((r) => ({ id: r.workspace.id, name: r.workspace.name, role: r.role }));
}
