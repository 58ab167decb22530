// A chat completion call to a node, metered: the shared core of /v1/chat/completions and of the
// responses API (which translates to chat completions for nodes that only speak that).
import { recordCall, type Metering } from "../../ledger/meter";
import { tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { withFailover } from "../../routing/nodes/router";
import { postJson } from "../../providers/openai-compatible/http";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { tokenUsage, type OpenAIUsage } from "./completion-shape";
import { relayChatStream } from "./relay-stream";


type ChatBody = Record<string, unknown> & { stream_options?: Record<string, unknown> | null };

/** A node's completion, answered but not yet billed: `charge` bills it and resolves once committed. */
export type UnchargedCompletion = { result: Record<string, unknown>; charge: () => Promise<void> };

/**
 * Calls the node (with failover) without charging yet, for a caller that must do something
 * before the call is billed (store what the node answered): when that fails, it releases the
 * reservation instead of charging, and the call costs nothing.
 */
export async function callNode(m: Metering, row: ModelRow, body: ChatBody, signal?: AbortSignal): Promise<UnchargedCompletion> {
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
  const charge = () => recordCall(m, { modelId: row.id, nodeId: routed.node.id, started }, { ...usage, cost: tokenCost(row, usage) });
  return { result, charge };
}

/** Calls the node and charges what it reports. */
export async function completeOnNode(m: Metering, row: ModelRow, body: ChatBody, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const { result, charge } = await callNode(m, row, body, signal);
  await charge();
  return result;
}

/**
 * Opens a stream on a node (failing over before its first byte) and relays its chunk payloads.
 * `beforeCharge` runs once the node finished, before the charge: when it throws, the stream
 * fails with its error and the call costs nothing (see relay-stream.ts).
 */
export async function streamOnNode(m: Metering, row: ModelRow, body: ChatBody, includeUsage: boolean, beforeCharge?: () => Promise<void>): Promise<AsyncGenerator<string>> {
  const started = performance.now();
  // Always ask the node for usage: it is what the call is billed on.
  const upstream = (model: string) => JSON.stringify({ ...body, model, stream: true, stream_options: { ...body.stream_options, include_usage: true } });
  const { result, routed, release } = await withFailover(row.id, (r) => postJson(r.node, "/chat/completions", upstream(r.upstreamModel)));
  return relayChatStream({ body: result.body, release, row, metering: m, nodeId: routed.node.id, upstreamModel: routed.upstreamModel, includeUsage, started, beforeCharge });
}
