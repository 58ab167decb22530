// The caller of a dashboard request: the next-auth session's user and, for the workspace named
// by `x-workspace-id` (or by the route), their principal in it.
import { currentSession } from "./current-session";
import type { Context } from "../../trpc/init";
import { createCaller, type Caller } from "../../trpc/root";
import { newRequestId } from "../../kernel/ids";

export async function dashboardContext(workspaceId: string | null): Promise<Context> {
  const { user, principal } = await currentSession(workspaceId);
  return { requestId: newRequestId(), principal, user };
}

/** For dashboard route handlers that answer with something tRPC cannot carry (files, CSV): the same procedures. */
export async function dashboardCaller(workspaceId: string | null): Promise<{ caller: Caller; requestId: string }> {
  const ctx = await dashboardContext(workspaceId);
  return { caller: createCaller(ctx), requestId: ctx.requestId };
}
