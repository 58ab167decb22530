// The caller of a dashboard request: the next-auth session's user and, for the workspace named
// by `x-workspace-id` (or by the route), their principal in it.
import { currentSession } from "./current-session";
import type { Context } from "../../trpc/init";
import { createCaller, type Caller } from "../../trpc/root";
import { newRequestId } from "../../kernel/ids";
import type { AnyOperation } from "../../contract/operation";
import { runOperation } from "../../pipeline/pipeline";

export async function dashboardContext(workspaceId: string | null): Promise<Context> {
  const { user, principal } = await currentSession(workspaceId);
  return { requestId: newRequestId(), principal, user };
}

/** For dashboard route handlers that answer with something tRPC cannot carry (files, CSV): the same procedures. */
export async function dashboardCaller(workspaceId: string | null): Promise<{ caller: Caller; requestId: string }> {
  const ctx = await dashboardContext(workspaceId);
  return { caller: createCaller(ctx), requestId: ctx.requestId };
}

/**
 * Runs a /v1 operation for the signed-in member of a workspace, the way the /v1 hosts run it (the
 * pipeline's runOperation), for route handlers whose answer tRPC cannot carry (a video file).
 */
export async function runAsMember(workspaceId: string | null, op: AnyOperation, input: unknown): Promise<{ answer: unknown; requestId: string }> {
  const ctx = await dashboardContext(workspaceId);
  const answer = await runOperation(op, { ...ctx, outcome: {} }, input);
  return { answer, requestId: ctx.requestId };
}
