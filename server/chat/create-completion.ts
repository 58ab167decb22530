// POST /v1/chat/completions: resolve the model, check it can serve the request and that the
// workspace can pay, route to a node (with failover), meter what the node reports, answer.
import type { Principal } from "../auth/principal";
import { recordUsage } from "../billing/meter";
import { assertCanSpend } from "../billing/balance-cache";
import { tokenCost } from "../billing/pricing";
import { resolveModel } from "../catalog/models";
import { postJson, UpstreamFailure } from "../providers/openai-compatible/http";
import { withFailover } from "../network/router";
import { assertChatCapable } from "./capabilities";
import { normalizeCompletion, tokenUsage, type OpenAIUsage } from "./completion-shape";
import type { ChatCompletionRequest } from "./schema";
import { relayChatStream } from "./relay-stream";

export type CallContext = { principal: Principal; requestId: string };

export async function createChatCompletion(ctx: CallContext, req: ChatCompletionRequest): Promise<Record<string, unknown> | AsyncIterable<string>> {
  const { row } = await resolveModel(req.model);
  assertChatCapable(row, req);
  await assertCanSpend(ctx.principal.workspaceId);
  const started = performance.now();
  const upstreamBody = (upstreamModel: string) =>
    JSON.stringify(
      req.stream
        ? // Always ask the node for usage: it is what the call is billed on.
          { ...req, model: upstreamModel, stream_options: { ...req.stream_options, include_usage: true } }
        : { ...req, model: upstreamModel },
    );

  if (req.stream) {
    const { result, routed, release } = await withFailover(row.id, (r) => postJson(r.node, "/chat/completions", upstreamBody(r.upstreamModel)));
    return relayChatStream({
      body: result.body,
      release,
      row,
      ctx,
      nodeId: routed.node.id,
      upstreamModel: routed.upstreamModel,
      includeUsage: req.stream_options?.include_usage === true,
      started,
    });
  }

  const { result, routed, release } = await withFailover(row.id, async (r) => {
    const res = await postJson(r.node, "/chat/completions", upstreamBody(r.upstreamModel));
    try {
      return JSON.parse(await res.body.text()) as Record<string, unknown>;
    } catch {
      // Nothing reached the client yet, so this may still go to another node.
      throw new UpstreamFailure("protocol", "the node sent an unreadable completion", 502);
    }
  });
  release();
  const completion = normalizeCompletion(result, row.id);
  const usage = tokenUsage(result.usage as OpenAIUsage | undefined);
  await recordUsage({
    id: ctx.requestId,
    workspaceId: ctx.principal.workspaceId,
    apiKeyId: ctx.principal.keyId,
    modelId: row.id,
    nodeId: routed.node.id,
    endpoint: "/v1/chat/completions",
    ...usage,
    cost: tokenCost(row, usage),
    latencyMs: Math.round(performance.now() - started),
  });
  return completion;
}
