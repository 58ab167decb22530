// How a batch line runs (server/batches/run-batch.ts): as a call of the batch's caller to the
// batch's endpoint, through the pipeline's stages from the permission check on (tier, input
// schema, service, admission with rate limits, budgets and the balance, the call, the meter), as
// a live call is; and how its failure is answered, in the endpoint's dialect, with the bodies the
// hosts answer failures with. Composed here, where a process is put together, since the batches
// domain lies below the pipeline that runs the lines.
import type { LineRunner } from "./batches/run-batch";
import { operations } from "./contract";
import type { AnyOperation } from "./contract/operation";
import { logFor } from "./infra/telemetry/log";
import { errorAnswer, internalError } from "./kernel/error-body";
import { errors, GatewayError } from "./kernel/errors";
import { hasIssues, validationError } from "./kernel/validation-error";
import { assertPermitted } from "./pipeline/authenticate";
import { runOperation } from "./pipeline/pipeline";

const log = logFor("batches");

const byEndpoint = new Map<string, AnyOperation>(operations.filter((op) => op.method === "POST").map((op) => [op.path, op]));

export const batchLines: LineRunner = {
  async run(ctx, endpoint, body) {
    const op = byEndpoint.get(endpoint);
    if (!op) throw errors.invalidRequest(`A batch cannot call ${endpoint}.`, "url");
    assertPermitted(ctx.principal, op.permission, op.method, op.path);
    return runOperation(op, ctx, body);
  },
  failure(err, endpoint, requestId) {
    let e: GatewayError;
    if (err instanceof GatewayError) e = err;
    else if (hasIssues(err)) e = validationError(err.issues);
    else {
      log.error({ err, requestId }, "batch line failed");
      e = internalError(requestId);
    }
    return errorAnswer(e, requestId, byEndpoint.get(endpoint)?.dialect);
  },
};
