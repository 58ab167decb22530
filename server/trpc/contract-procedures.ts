// The /v1 operations as tRPC procedures, made from the contract: one per declared operation, so
// the dashboard calls the same ones over /api/trpc. Each runs the operation through the pipeline
// function the /v1 hosts use (server/pipeline/pipeline.ts: tier, input schema, service, admission
// of a model call), with the dashboard's caller; only a failure's form is tRPC's own here.
import type { TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import type { z } from "zod";
import type { Operation, Tier } from "../contract/operation";
import type { Answer } from "../admission/admit";
import { runOperation } from "../pipeline/pipeline";
import { asTRPCError, bareProcedure, router, type Context } from "./init";

type ProcedureOf<O> =
  O extends Operation<infer I, infer R, Tier, infer K>
    ? K extends "query"
      ? TRPCQueryProcedure<{ input: z.input<I>; output: Answer<Awaited<R>>; meta: unknown }>
      : TRPCMutationProcedure<{ input: z.input<I>; output: Answer<Awaited<R>>; meta: unknown }>
    : never;

/** The input as sent: the pipeline validates it against the operation's schema. */
const asSent = (input: unknown) => input;

function procedureOf<O extends Operation>(op: O): ProcedureOf<O> {
  const built = bareProcedure.input(asSent);
  const resolve = async ({ ctx, input }: { ctx: Context; input: unknown }) => {
    try {
      return await runOperation(op, { requestId: ctx.requestId, principal: ctx.principal, user: ctx.user, outcome: {} }, input);
    } catch (err) {
      throw asTRPCError(err);
    }
  };
  return (op.kind === "query" ? built.query(resolve) : built.mutation(resolve)) as unknown as ProcedureOf<O>;
}

/** A router holding one procedure per operation of a contract group. */
export function contractRouter<G extends Record<string, Operation>>(group: G) {
  const procedures = {} as { [N in keyof G]: ProcedureOf<G[N]> };
  for (const name of Object.keys(group) as (keyof G)[]) procedures[name] = procedureOf(group[name]!);
  return router(procedures);
}
