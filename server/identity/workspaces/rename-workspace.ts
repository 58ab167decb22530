// Renaming a workspace. The procedure checks `workspace.rename`; the service only ever touches
// the workspace the caller's principal is acting in, never an id taken from the input.
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";

export const ZWorkspaceName = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

export const ZRenameWorkspaceInput = z.object({ name: ZWorkspaceName });
export type RenameWorkspaceInput = z.input<typeof ZRenameWorkspaceInput>;

export const ZRenamedWorkspace = z.object({ id: z.string(), name: z.string() });
export type RenamedWorkspace = z.infer<typeof ZRenamedWorkspace>;

export async function renameWorkspace(workspaceId: string, input: RenameWorkspaceInput, actor?: AuditActor): Promise<RenamedWorkspace> {
  const { name } = ZRenameWorkspaceInput.parse(input);
  return db.$transaction(async (tx) => {
    const before = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { name: true } });
    if (!before) throw errors.notFound("No such workspace.", "workspace_not_found");
    await tx.workspace.update({ where: { id: workspaceId }, data: { name } });
    const changes = diff(before, { name }, ["name"]);
    await recordAudit(tx, { workspaceId, actor, action: "workspace.rename", target: { type: "workspace", id: workspaceId }, changes });
    return { id: workspaceId, name };
  });
}
