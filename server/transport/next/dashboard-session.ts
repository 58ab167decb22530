// For the dashboard's server components: who is signed in, and their workspaces.
import "server-only";
import type { SessionUser } from "../../identity/users/session-user";
import { myWorkspaces, type MyWorkspace } from "../../identity/workspaces/my-workspaces";
import { currentSession } from "./current-session";

export type DashboardSession = { user: SessionUser; workspaces: MyWorkspace[] };

export async function dashboardSession(): Promise<DashboardSession | null> {
  const { user } = await currentSession();
  if (!user) return null;
  return { user, workspaces: await myWorkspaces(user.id) };
}
