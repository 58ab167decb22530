// A chat completion call to a node, metered: the shared core of /v1/chat/completions and of the
// responses API (which translates to chat completions for nodes that only speak that).
import { recordCall, type Metering } from "../../ledger/meter";
import { tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { withFailover } from "../../routing/nodes/router";
import { adapterFor } from "../../providers/adapters";
import { tokenUsage, type OpenAIUsage } from "./completion-shape";
import { answerText, estimateUsage } from "./count-prompt";
import { relayChatStream } from "./relay-stream";

const completionText = (result: Record<string, unknown>) =>
  ((result.choices as { message?: Record<string, unknown> }[] | undefined) ?? []).map((c) => answerText(c.message ?? {})).join("");


type ChatBody = Record<string, unknown> & { messages?: unknown; tools?: unknown; stream_options?: Record<string, unknown> | null };

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
    (r) => adapterFor(r.node.wire).complete(r.node, { ...body, model: r.upstreamModel }, { signal, maxOutputTokens: row.maxOutputTokens }),
    signal,
  );
  release();
  // A node that reported no usage is billed from the gateway's own count (marked as estimated).
  const reported = result.usage as OpenAIUsage | undefined;
  const usage = reported ? tokenUsage(reported) : await estimateUsage(body, completionText(result));
  if (!reported) result.usage = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
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
  // Each adapter asks the node for usage: it is what the call is billed on.
  const { result, routed, release } = await withFailover(row.id, (r) => adapterFor(r.node.wire).openStream(r.node, { ...body, model: r.upstreamModel }, { maxOutputTokens: row.maxOutputTokens }));
  return relayChatStream({
    body: result.response.body,
    translator: result.translator,
    request: body,
    release,
    row,
    metering: m,
    nodeId: routed.node.id,
    upstreamModel: routed.upstreamModel,
    includeUsage,
    started,
    beforeCharge,
  });
}
