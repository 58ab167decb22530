// Who the session cookie belongs to, read fresh from the database (and their principal in
// `workspaceId`): the one place a dashboard request's next-auth session is resolved.
import { getServerSession } from "next-auth";
import { authOptions } from "./auth-options";
import { resolveSession, type ResolvedSession } from "../../identity/users/session-principal";

export async function currentSession(workspaceId: string | null = null): Promise<ResolvedSession> {
  const session = await getServerSession(authOptions);
  const user = session?.user as { id?: string; sv?: number; amr?: string } | undefined;
  return resolveSession(user?.id, workspaceId, { sv: user?.sv, amr: user?.amr });
}
