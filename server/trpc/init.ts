// tRPC: context, procedure tiers and the error formatter. The procedures behind /v1 and the
// dashboard are the same; only how the caller is authenticated differs: /v1 resolves an API key
// to a principal, /api/trpc resolves the next-auth session (and the workspace the dashboard is
// showing, from the `x-workspace-id` header) to a user and a `user` principal.
import { initTRPC, TRPCError } from "@trpc/server";
import type { Principal } from "../auth/principal";
import type { SessionUser } from "../auth/session-user";
import { errors, GatewayError } from "../errors";
import { can, type Permission } from "../workspaces/permissions";

export type Context = {
  requestId: string;
  principal: Principal | null;
  /** The signed-in dashboard user; null for API-key callers. */
  user?: SessionUser | null;
};

const CODE_BY_STATUS: Record<number, TRPCError["code"]> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "TOO_MANY_REQUESTS",
  501: "NOT_IMPLEMENTED",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
};

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause instanceof GatewayError ? error.cause : null;
    // An unexpected failure keeps its details in the log, never in the answer.
    const issues = (error.cause as { issues?: Array<{ path: PropertyKey[]; message: string }> } | undefined)?.issues;
    const first = error.code === "BAD_REQUEST" && Array.isArray(issues) ? issues[0] : undefined;
    const message = first
      ? `${first.path.map(String).join(".") || "input"}: ${first.message}`
      : error.code === "INTERNAL_SERVER_ERROR" && !cause
        ? "Internal error"
        : shape.message;
    return {
      ...shape,
      message,
      data: { ...shape.data, stack: undefined, gatewayCode: cause?.code ?? null, param: cause?.param ?? null, status: cause?.status ?? null },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** A GatewayError thrown by a service becomes the tRPC error of the same status (the /v1 adapter unwraps it again). */
const gatewayErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof GatewayError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: CODE_BY_STATUS[cause.status] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  return result;
});

export const publicProcedure = t.procedure.use(gatewayErrors);

/** Procedures scoped by a workspace: an API key, or a signed-in member acting in a workspace. */
export const apiKeyProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.principal) throw ctx.user ? errors.notFound("Pick a workspace (x-workspace-id) you are a member of.", "workspace_not_found") : errors.invalidApiKey();
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

/**
 * Procedures that spend the workspace's credits or change what calls produced (deleting a video,
 * cancelling a response): dashboard members need a role allowed to call models (not `billing`).
 */
export const billedProcedure = apiKeyProcedure.use(({ ctx, next }) => {
  if (ctx.principal.kind === "user" && !can(ctx.principal.role, "models.call")) {
    throw errors.permissionDenied(`The ${ctx.principal.role} role cannot call models from the dashboard.`);
  }
  return next();
});

/** Dashboard procedures: a signed-in user. */
export const sessionProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new GatewayError({ status: 401, code: "unauthenticated", message: "Sign in first." });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Gateway operators only (nodes, credits). */
export const operatorProcedure = sessionProcedure.use(({ ctx, next }) => {
  if (!ctx.user.isOperator) throw errors.permissionDenied("Only gateway operators may do this.");
  return next();
});

/** A signed-in member of the workspace in `x-workspace-id` whose role grants `permission`. */
export function workspaceProcedure(permission: Permission) {
  return sessionProcedure.use(({ ctx, next }) => {
    const p = ctx.principal;
    if (p?.kind !== "user") throw errors.notFound("No such workspace, or you are not a member of it.", "workspace_not_found");
    if (!can(p.role, permission)) throw errors.permissionDenied(`The ${p.role} role may not do this (${permission}).`);
    return next({ ctx: { ...ctx, principal: p } });
  });
}
