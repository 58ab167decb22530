// POST /v1/embeddings: routed like chat (to the node's wire format's adapter), billed on the input tokens the node reports (after
// reserving the most the inputs can count).
import { recordCall, type Metering } from "../../ledger/meter";
import { maxEmbeddingCost, maxEmbeddingTokens, tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { ModelCall } from "../../admission/admit";
import { errors } from "../../kernel/errors";
import { withFailover } from "../../routing/nodes/router";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { encoder } from "../chat/count-prompt";
import type { EmbeddingsRequest } from "./schema";

/** The inputs' tokens as the gateway counts them: each text's tokens, or each token-id list's length. */
async function countInputs(input: EmbeddingsRequest["input"]): Promise<number> {
  const items: (string | number[])[] = typeof input === "string" ? [input] : typeof input[0] === "number" ? [input as number[]] : (input as (string | number[])[]);
  const enc = await encoder();
  return items.reduce((sum, item) => sum + (typeof item === "string" ? enc.encode(item).length : item.length), 0);
}

export async function createEmbeddings(req: EmbeddingsRequest, workspaceId: string | null): Promise<ModelCall<Record<string, unknown>>> {
  const { row } = await resolveModel(req.model, workspaceId);
  if (row.type !== "embedding") {
    throw errors.invalidRequest(`\`${row.id}\` is a ${row.type} model; /v1/embeddings needs an embedding model.`, "model", "model_not_supported");
  }
  const spec = { endpoint: "/v1/embeddings", model: row.id, maxCost: maxEmbeddingCost(row, req.input), tokens: maxEmbeddingTokens(row, req.input) };
  return new ModelCall(spec, (metering) => embed(metering, row, req));
}

async function embed(metering: Metering, row: ModelRow, req: EmbeddingsRequest): Promise<Record<string, unknown>> {
  const started = performance.now();
  const { result, routed, release } = await withFailover(row.id, async (r) => {
    const adapter = r.node.adapter;
    if (!adapter.embed) throw new UpstreamFailure("protocol", `a ${r.node.wire} node has no embeddings`, 502);
    return (await adapter.embed(r.node, { ...req, model: r.upstreamModel }, { maxOutputTokens: row.maxOutputTokens })) as { usage?: { prompt_tokens?: number; total_tokens?: number } } & Record<string, unknown>;
  }, undefined, metering.ctx.attempt);
  release();
  // A node that reports no count (Gemini's embeddings never do) is billed from the gateway's own (marked as estimated).
  const reported = result.usage?.prompt_tokens;
  const inputTokens = reported ?? (await countInputs(req.input));
  const usage = { inputTokens, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, estimated: reported === undefined };
  await recordCall(metering, { modelId: row.id, nodeId: routed.node.id, started }, { inputTokens, estimated: usage.estimated, cost: tokenCost(row, usage) });
  return { ...result, object: "list", model: row.id, usage: { prompt_tokens: inputTokens, total_tokens: result.usage?.total_tokens ?? inputTokens } };
}
