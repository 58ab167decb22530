// POST /v1/chat/completions: resolve the model, check it can serve the request, reserve the most
// the call can cost (402 when the workspace cannot cover it), route to a node (with failover),
// charge what the node reports, answer. A stream keeps its reservation until its charge commits
// or it fails (relay-stream.ts).
import { admit } from "../../identity/admission";
import { release } from "../../ledger/meter";
import { maxChatCost, maxChatTokens } from "../../routing/catalog/pricing";
import { resolveModel } from "../../routing/catalog/models";
import { assertChatCapable } from "./capabilities";
import type { CallContext } from "../../identity/principal";
import { completeOnNode, streamOnNode } from "./call-node";
import { normalizeCompletion } from "./completion-shape";
import type { ChatCompletionRequest } from "./schema";

export async function createChatCompletion(ctx: CallContext, req: ChatCompletionRequest): Promise<Record<string, unknown> | AsyncIterable<string>> {
  const { row } = await resolveModel(req.model);
  assertChatCapable(row, req);
  const metering = await admit(ctx, { endpoint: "/v1/chat/completions", model: row.id, maxCost: maxChatCost(row, req), tokens: maxChatTokens(row, req) });
  try {
    if (req.stream) return await streamOnNode(metering, row, req, req.stream_options?.include_usage === true);
    return normalizeCompletion(await completeOnNode(metering, row, req), row.id);
  } catch (err) {
    release(metering);
    throw err;
  }
}
