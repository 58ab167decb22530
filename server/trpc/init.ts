// tRPC: context, procedure tiers and the error formatter. The procedures behind /v1 and the
// dashboard are the same; only how the caller is authenticated differs: /v1 resolves an API key
// to a principal, /api/trpc resolves the next-auth session (and the workspace the dashboard is
// showing, from the `x-workspace-id` header) to a user and a `user` principal.
import { initTRPC, TRPCError } from "@trpc/server";
import type { Access } from "../identity/access";
import type { Principal } from "../identity/principal";
import type { SessionUser } from "../identity/users/session-user";
import type { CallObserver } from "../kernel/call-observer";
import { errors, GatewayError } from "../kernel/errors";
import { hasIssues, validationError } from "../kernel/validation-error";
import { trpcCodeFor } from "./error-codes";
import { can, type Permission } from "../identity/workspaces/permissions";

export type Context = {
  requestId: string;
  principal: Principal | null;
  /** The signed-in dashboard user; null for a dashboard request without a session; absent for API-key callers (/v1). */
  user?: SessionUser | null;
  /** Headers the /v1 answer carries whatever its outcome (rate limits); set by the dispatcher. */
  answerHeaders?: Record<string, string>;
  /** What the /v1 caller may do, resolved once by the dispatcher (identity/access.ts). */
  access?: Promise<Access>;
  /** Frames a /v1 stream ends with (an x402 settlement); set by the dispatcher. */
  trailers?: string[];
  /** The /v1 request's telemetry; set by the dispatcher. */
  observer?: CallObserver;
};

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    // Invalid input reads as the REST API says it; an unexpected failure keeps its details in the log.
    const invalid = error.code === "BAD_REQUEST" && hasIssues(error.cause) ? validationError(error.cause.issues) : null;
    const cause = error.cause instanceof GatewayError ? error.cause : invalid;
    const message = invalid ? invalid.message : error.code === "INTERNAL_SERVER_ERROR" && !cause ? "Internal error" : shape.message;
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
function asTRPCError(err: unknown): unknown {
  return err instanceof GatewayError ? new TRPCError({ code: trpcCodeFor(err.status), message: err.message, cause: err }) : err;
}

/** What the procedure below returned, with a GatewayError it failed with as the tRPC error of its status. */
function withGatewayErrors<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R): R {
  if (!result.ok && result.error.cause instanceof GatewayError) throw asTRPCError(result.error.cause);
  return result;
}

/** A tier's check, whose GatewayError is thrown as the tRPC error of its status. */
function check<T>(tierCheck: () => T): T {
  try {
    return tierCheck();
  } catch (err) {
    throw asTRPCError(err);
  }
}

export const publicProcedure = t.procedure.use(async ({ next }) => withGatewayErrors(await next()));

/** The caller's principal, for procedures scoped by a workspace. */
function principalOf(ctx: Context): Principal {
  if (ctx.principal) return ctx.principal;
  // user: undefined is an API-key caller (/v1), null a dashboard request without a session.
  if (ctx.user) throw errors.notFound("Pick a workspace (x-workspace-id) you are a member of.", "workspace_not_found");
  throw ctx.user === null ? errors.unauthenticated() : errors.invalidApiKey();
}

/** The caller's principal, which may spend the workspace's credits. */
function payingPrincipalOf(ctx: Context): Principal {
  const principal = principalOf(ctx);
  if (principal.kind === "user" && !can(principal.role, "models.call")) {
    throw errors.permissionDenied(`The ${principal.role} role cannot call models from the dashboard.`);
  }
  return principal;
}

/**
 * A tier of /v1: one middleware (the caller's principal, checked, and the error mapping), not a
 * chain, since every middleware is a step of every call's way in and out.
 */
const tier = (principalFor: (ctx: Context) => Principal) =>
  t.procedure.use(async ({ ctx, next }) => {
    const principal = check(() => principalFor(ctx));
    return withGatewayErrors(await next({ ctx: { principal } }));
  });

/** Procedures scoped by a workspace: an API key, or a signed-in member acting in a workspace. */
export const apiKeyProcedure = tier(principalOf);

/**
 * Procedures that spend the workspace's credits or change what calls produced (deleting a video,
 * cancelling a response): dashboard members need a role allowed to call models (not `billing`).
 */
export const billedProcedure = tier(payingPrincipalOf);

/** Dashboard procedures: a signed-in user. */
export const sessionProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw errors.unauthenticated();
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
