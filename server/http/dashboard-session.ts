// For the dashboard's server components: who is signed in, and their workspaces.
import "server-only";
import { getServerSession } from "next-auth";
import { authOptions } from "../auth/auth-options";
import { loadSessionUser } from "../auth/session-principal";
import type { SessionUser } from "../auth/session-user";
import { myWorkspaces, type MyWorkspace } from "../workspaces/my-workspaces";

export type DashboardSession = { user: SessionUser; workspaces: MyWorkspace[] };

export async function dashboardSession(): Promise<DashboardSession | null> {
  const session = await getServerSession(authOptions);
  const user = await loadSessionUser((session?.user as { id?: string } | undefined)?.id);
  if (!user) return null;
  return { user, workspaces: await myWorkspaces(user.id) };
}
