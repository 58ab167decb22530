import { getWorkspace } from "../../server/identity/workspaces/get-workspace";

/** Fails with "No workspace with id …" (exit 1) rather than listing nothing for an unknown id. */
export async function requireWorkspace(workspaceId: string): Promise<void> {
  await getWorkspace(workspaceId);
}
