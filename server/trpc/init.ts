// tRPC: context, procedure tiers and the error formatter. The procedures behind /v1 and the
// dashboard are the same; only how the caller is authenticated differs.
import { initTRPC } from "@trpc/server";
import type { Principal } from "../auth/principal";
import { errors, GatewayError } from "../errors";

export type Context = { requestId: string; principal: Principal | null };

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause instanceof GatewayError ? error.cause : null;
    return {
      ...shape,
      data: { ...shape.data, gatewayCode: cause?.code ?? null, param: cause?.param ?? null, status: cause?.status ?? null },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

/** Procedures billed to or scoped by a workspace: the caller must hold a workspace API key. */
export const apiKeyProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.principal) throw errors.invalidApiKey();
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});
