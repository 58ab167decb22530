// POST /v1/chat/completions: resolve the model, check it can serve the request and that the
// workspace can pay, route to a node (with failover), meter what the node reports, answer.
import { assertCanSpend } from "../../ledger/balance-cache";
import { resolveModel } from "../../routing/catalog/models";
import { assertChatCapable } from "./capabilities";
import type { CallContext } from "../../identity/principal";
import { meteringFor } from "../../ledger/meter";
import { completeOnNode, streamOnNode } from "./call-node";
import { normalizeCompletion } from "./completion-shape";
import type { ChatCompletionRequest } from "./schema";

export async function createChatCompletion(ctx: CallContext, req: ChatCompletionRequest): Promise<Record<string, unknown> | AsyncIterable<string>> {
  const { row } = await resolveModel(req.model);
  assertChatCapable(row, req);
  await assertCanSpend(ctx.principal.workspaceId);
  const metering = meteringFor(ctx, "/v1/chat/completions");
  if (req.stream) return streamOnNode(metering, row, req, req.stream_options?.include_usage === true);
  return normalizeCompletion(await completeOnNode(metering, row, req), row.id);
}
