// Renaming a workspace. The procedure checks `workspace.rename`; the service only ever touches
// the workspace the caller's principal is acting in, never an id taken from the input.
import { z } from "zod";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";

export const ZWorkspaceName = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

export const ZRenameWorkspaceInput = z.object({ name: ZWorkspaceName });
export type RenameWorkspaceInput = z.input<typeof ZRenameWorkspaceInput>;

export const ZRenamedWorkspace = z.object({ id: z.string(), name: z.string() });
export type RenamedWorkspace = z.infer<typeof ZRenamedWorkspace>;

export async function renameWorkspace(workspaceId: string, input: RenameWorkspaceInput): Promise<RenamedWorkspace> {
  const { name } = ZRenameWorkspaceInput.parse(input);
  const { count } = await db.workspace.updateMany({ where: { id: workspaceId }, data: { name } });
  if (count === 0) throw errors.notFound("No such workspace.", "workspace_not_found");
  return { id: workspaceId, name };
}
