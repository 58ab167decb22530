// A chat completion call to a node, metered: the shared core of /v1/chat/completions and of the
// responses API (which translates to chat completions for nodes that only speak that).
import { recordCall, type Metering } from "../../ledger/meter";
import { tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { withFailover, type Routed } from "../../routing/nodes/router";
import type { OpenedStream } from "../../providers/adapter";
import { tokenUsage, type OpenAIUsage } from "./completion-shape";
import { answerText, estimateUsage } from "./count-prompt";
import { relayChatStream } from "./relay-stream";

const completionText = (result: Record<string, unknown>) =>
  ((result.choices as { message?: Record<string, unknown> }[] | undefined) ?? []).map((c) => answerText(c.message ?? {})).join("");


export type ChatBody = Record<string, unknown> & { messages?: unknown; tools?: unknown; stream_options?: Record<string, unknown> | null };

/** A node's completion, answered but not yet billed: `charge` bills it and resolves once committed. */
export type UnchargedCompletion = { result: Record<string, unknown>; charge: () => Promise<void> };

/** Asks a routed node for a completion, in its wire format. */
export const completeOn = (row: ModelRow, body: ChatBody, signal?: AbortSignal) => (r: Routed) =>
  r.node.adapter.complete(r.node, { ...body, model: r.upstreamModel }, { signal, maxOutputTokens: row.maxOutputTokens });

/** Opens a stream on a routed node, in its wire format (each adapter asks the node for usage: it is what the call is billed on). */
export const openStreamOn = (row: ModelRow, body: ChatBody) => (r: Routed) =>
  r.node.adapter.openStream(r.node, { ...body, model: r.upstreamModel }, { maxOutputTokens: row.maxOutputTokens });

/** A node's completion, ready to charge: a node that reported no usage is billed from the gateway's own count (marked as estimated). */
export async function unchargedCompletion(m: Metering, row: ModelRow, body: ChatBody, result: Record<string, unknown>, nodeId: string, started: number): Promise<UnchargedCompletion> {
  const reported = result.usage as OpenAIUsage | undefined;
  const usage = reported ? tokenUsage(reported) : await estimateUsage(body, completionText(result));
  if (!reported) result.usage = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
  const charge = () => recordCall(m, { modelId: row.id, nodeId, started }, { ...usage, cost: tokenCost(row, usage) });
  return { result, charge };
}

/**
 * Calls the node (with failover) without charging yet, for a caller that must do something
 * before the call is billed (store what the node answered): when that fails, it releases the
 * reservation instead of charging, and the call costs nothing.
 */
export async function callNode(m: Metering, row: ModelRow, body: ChatBody, signal?: AbortSignal): Promise<UnchargedCompletion> {
  const started = performance.now();
  const { result, routed, release } = await withFailover(row.id, completeOn(row, body, signal), signal, m.ctx.attempt);
  release();
  return unchargedCompletion(m, row, body, result, routed.node.id, started);
}

/** Calls the node and charges what it reports. */
export async function completeOnNode(m: Metering, row: ModelRow, body: ChatBody, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const { result, charge } = await callNode(m, row, body, signal);
  await charge();
  return result;
}

type Relay = { m: Metering; row: ModelRow; body: ChatBody; includeUsage: boolean; started: number; beforeCharge?: () => Promise<void> };

/** Relays a stream opened on a routed node (see relay-stream.ts). */
export function relayOpened(opened: OpenedStream, routed: Routed, release: () => void, relay: Relay): AsyncGenerator<string> {
  return relayChatStream({
    body: opened.response.body,
    translator: opened.translator,
    request: relay.body,
    release,
    row: relay.row,
    metering: relay.m,
    nodeId: routed.node.id,
    upstreamModel: routed.upstreamModel,
    includeUsage: relay.includeUsage,
    started: relay.started,
    beforeCharge: relay.beforeCharge,
  });
}

/**
 * Opens a stream on a node (failing over before its first byte) and relays its chunk payloads.
 * `beforeCharge` runs once the node finished, before the charge: when it throws, the stream
 * fails with its error and the call costs nothing (see relay-stream.ts).
 */
export async function streamOnNode(m: Metering, row: ModelRow, body: ChatBody, includeUsage: boolean, beforeCharge?: () => Promise<void>): Promise<AsyncGenerator<string>> {
  const started = performance.now();
  const { result, routed, release } = await withFailover(row.id, openStreamOn(row, body), undefined, m.ctx.attempt);
  return relayOpened(result, routed, release, { m, row, body, includeUsage, started, beforeCharge });
}
