// tRPC: context, the dashboard's procedure kinds and the error formatter. /api/trpc resolves the
// next-auth session (and the workspace the dashboard is showing, from the `x-workspace-id` header)
// to a user and a `user` principal. The /v1 operations are procedures here too
// (contract-procedures.ts), run by the same pipeline function as the /v1 hosts; a GatewayError
// becomes a tRPC error of its status only here, at tRPC's edge.
import { initTRPC, TRPCError } from "@trpc/server";
import type { Principal } from "../identity/principal";
import type { SessionUser } from "../identity/users/session-user";
import { errors, GatewayError } from "../kernel/errors";
import { hasIssues, validationError } from "../kernel/validation-error";
import { trpcCodeFor } from "./error-codes";
import { can, type Permission } from "../identity/workspaces/permissions";

export type Context = {
  requestId: string;
  principal: Principal | null;
  /** The signed-in dashboard user; null for a dashboard request without a session. */
  user?: SessionUser | null;
};

/**
 * What a procedure is gated by, readable from the router (a test walks every mutation with it):
 * the workspace permission it needs, or that it acts on the caller's account (no workspace) or is
 * for gateway operators.
 */
export type ProcMeta = { permission?: Permission; scope?: "account" | "operator" };

const t = initTRPC.context<Context>().meta<ProcMeta>().create({
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

/** A GatewayError thrown by a service becomes the tRPC error of the same status (/api/trpc answers with it). */
export function asTRPCError(err: unknown): unknown {
  return err instanceof GatewayError ? new TRPCError({ code: trpcCodeFor(err.status), message: err.message, cause: err }) : err;
}

/** What the procedure below returned, with a GatewayError it failed with as the tRPC error of its status. */
function withGatewayErrors<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R): R {
  if (!result.ok && result.error.cause instanceof GatewayError) throw asTRPCError(result.error.cause);
  return result;
}

/** A procedure with no middleware: the contract's operations, which run the pipeline and map their own errors. */
export const bareProcedure = t.procedure;

export const publicProcedure = t.procedure.use(async ({ next }) => withGatewayErrors(await next()));

/** Dashboard procedures: a signed-in user. */
export const sessionProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw errors.unauthenticated();
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** A signed-in user acting on their own account, in no workspace (sign-up's claim, creating a workspace, accepting an invitation). */
export const accountProcedure = sessionProcedure.meta({ scope: "account" });

/** Gateway operators only (nodes, credits). */
export const operatorProcedure = sessionProcedure.meta({ scope: "operator" }).use(({ ctx, next }) => {
  if (!ctx.user.isOperator) throw errors.permissionDenied("Only gateway operators may do this.");
  return next();
});

/** A signed-in member of the workspace in `x-workspace-id` whose role grants `permission`. */
export function workspaceProcedure(permission: Permission) {
  return sessionProcedure.meta({ permission }).use(({ ctx, next }) => {
    const p = ctx.principal;
    if (p?.kind !== "user") throw errors.notFound("No such workspace, or you are not a member of it.", "workspace_not_found");
    if (!can(p, permission)) throw errors.permissionDenied(`The ${p.customRole ? `${p.customRole.name} role` : `${p.role} role`} may not do this (${permission}).`);
    return next({ ctx: { ...ctx, principal: p } });
  });
}
