// What a member leaves behind must not outlive their rights: when someone is removed (or leaves),
// the API keys they created stop working and their pending invitations are withdrawn; when their
// new role (built-in or custom) may no longer hold keys or invite, the same happens for what that
// role lost. Runs in the caller's transaction, so the change of membership and this are one.
import type { Tx } from "../../infra/db/client";
import { revokeKeysCreatedBy } from "../keys/revoke-key";
import { can, type PermissionHolder } from "./permissions";

export async function withdrawMemberRights(tx: Tx, workspaceId: string, userId: string, newRole: PermissionHolder | null): Promise<void> {
  if (!newRole || !can(newRole, "keys.create")) await revokeKeysCreatedBy(tx, workspaceId, userId);
  if (!newRole || !can(newRole, "members.manage")) {
    await tx.invitation.deleteMany({ where: { workspaceId, createdById: userId, acceptedAt: null } });
  }
}
