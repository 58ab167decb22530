// A chat completion call to a node, metered: the shared core of /v1/chat/completions and of the
// responses API (which translates to chat completions for nodes that only speak that).
import { recordCall, type Metering } from "../../ledger/meter";
import { tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { withFailover } from "../../routing/nodes/router";
import { postJson, UpstreamFailure } from "../../providers/openai-compatible/http";
import { tokenUsage, type OpenAIUsage } from "./completion-shape";
import { relayChatStream } from "./relay-stream";


type ChatBody = Record<string, unknown> & { stream_options?: Record<string, unknown> | null };

export async function completeOnNode(m: Metering, row: ModelRow, body: ChatBody, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const started = performance.now();
  const { result, routed, release } = await withFailover(
    row.id,
    async (r) => {
      const res = await postJson(r.node, "/chat/completions", JSON.stringify({ ...body, model: r.upstreamModel, stream: false }), signal);
      try {
        return JSON.parse(await res.body.text()) as Record<string, unknown>;
      } catch (err) {
        if (signal?.aborted) throw err;
        // Nothing reached the client yet, so this may still go to another node.
        throw new UpstreamFailure("protocol", "the node sent an unreadable completion", 502);
      }
    },
    signal,
  );
  release();
  const usage = tokenUsage(result.usage as OpenAIUsage | undefined);
  await recordCall(m, { modelId: row.id, nodeId: routed.node.id, started }, { ...usage, cost: tokenCost(row, usage) });
  return result;
}

/** Opens a stream on a node (failing over before its first byte) and relays its chunk payloads. */
export async function streamOnNode(m: Metering, row: ModelRow, body: ChatBody, includeUsage: boolean): Promise<AsyncGenerator<string>> {
  const started = performance.now();
  // Always ask the node for usage: it is what the call is billed on.
  const upstream = (model: string) => JSON.stringify({ ...body, model, stream: true, stream_options: { ...body.stream_options, include_usage: true } });
  const { result, routed, release } = await withFailover(row.id, (r) => postJson(r.node, "/chat/completions", upstream(r.upstreamModel)));
  return relayChatStream({ body: result.body, release, row, metering: m, nodeId: routed.node.id, upstreamModel: routed.upstreamModel, includeUsage, started });
}
