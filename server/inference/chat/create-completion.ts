// POST /v1/chat/completions: resolve the model and check it can serve the request, then hand the
// pipeline a model call: admitted for the most it can cost (402 when the workspace cannot cover
// it), routed to a node (with failover), charged what the node reports. A stream keeps its
// reservation until its charge commits or it fails (relay-stream.ts).
import { maxChatCost, maxChatTokens } from "../../routing/catalog/pricing";
import { resolveModel } from "../../routing/catalog/models";
import { assertChatCapable } from "./capabilities";
import { ModelCall } from "../model-call";
import { completeOnNode, streamOnNode } from "./call-node";
import { normalizeCompletion } from "./completion-shape";
import type { ChatCompletionRequest } from "./schema";

export async function createChatCompletion(req: ChatCompletionRequest): Promise<ModelCall<Record<string, unknown> | AsyncIterable<string>>> {
  const { row } = await resolveModel(req.model);
  assertChatCapable(row, req);
  return new ModelCall({ endpoint: "/v1/chat/completions", model: row.id, maxCost: maxChatCost(row, req), tokens: maxChatTokens(row, req) }, async (metering) => {
    if (req.stream) return streamOnNode(metering, row, req, req.stream_options?.include_usage === true);
    return normalizeCompletion(await completeOnNode(metering, row, req), row.id);
  });
}
