// How a batch line runs (server/batches/run-batch.ts): as a call of the batch's caller to the
// batch's endpoint, through the pipeline's stages from the permission check on (tier, input
// schema, service, admission with rate limits, budgets and the balance, the call, the meter), as
// a live call is. Composed here, where a process is put together, since the batches domain lies
// below the pipeline that runs the lines.
import type { RunLine } from "./batches/run-batch";
import { operations } from "./contract";
import type { AnyOperation } from "./contract/operation";
import { errors } from "./kernel/errors";
import { assertPermitted } from "./pipeline/authenticate";
import { runOperation } from "./pipeline/pipeline";

const byEndpoint = new Map<string, AnyOperation>(operations.filter((op) => op.method === "POST").map((op) => [op.path, op]));

export const runBatchLine: RunLine = async (ctx, endpoint, body) => {
  const op = byEndpoint.get(endpoint);
  if (!op) throw errors.invalidRequest(`A batch cannot call ${endpoint}.`, "url");
  assertPermitted(ctx.principal, op.permission, op.method, op.path);
  return runOperation(op, ctx, body);
};
