// POST /v1/messages: on an `anthropic` node the request is passed through as the client sent it
// (native.ts); on an OpenAI-format or Gemini node it becomes a chat completion (to-chat.ts), sent
// in that node's format, and its answer (or stream) becomes Anthropic's Message (or its events).
// Which one is decided per node tried, so failover may cross formats. A max_tokens above the
// model's output limit is lowered to it: coding agents ask for more than many models give, and a
// 400 would stop them.
import { ModelCall } from "../../admission/admit";
import { EventStream } from "../../kernel/event-stream";
import type { OpenedStream } from "../../providers/adapter";
import type { UpstreamResponse } from "../../providers/http";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { maxChatBounds } from "../../routing/catalog/pricing";
import { withFailover, type Routed } from "../../routing/nodes/router";
import { completeOn, openStreamOn, relayOpened, unchargedCompletion } from "../chat/call-node";
import { assertChatCapable } from "../chat/create-completion";
import type { ChatCompletionRequest } from "../chat/schema";
import { messageFromCompletion } from "./from-chat";
import { chargedMessage, nativeBody, nativeEvents, readMessage } from "./native";
import type { MessageCreate } from "./schema";
import { messageEvents } from "./stream-events";
import { toChatRequest } from "./to-chat";

type Json = Record<string, unknown>;

/** What the node tried answered: Anthropic's own message or stream, or a chat completion or stream to translate. */
type Answered = { message: Json } | { events: UpstreamResponse } | { completion: Json } | { chunks: OpenedStream };

const MEDIA = new Set(["image", "document"]);

/** Whether a block list holds an image or a document, tool results' content included. */
function hasMedia(content: unknown): boolean {
  return Array.isArray(content) && (content as Json[]).some((b) => MEDIA.has(String(b.type)) || (b.type === "tool_result" && hasMedia(b.content)));
}

/**
 * What the call is reserved on: the chat request it becomes, with Anthropic's own request beside
 * it, since an `anthropic` node gets that one, with what translation drops (documents, server
 * tools) and every byte of it. A document or image anywhere may fill the model's context.
 */
function costBound(req: MessageCreate, chat: ChatCompletionRequest): Json {
  if (req.messages.some((m) => hasMedia(m.content))) return { ...chat, messages: [...chat.messages, { role: "user", content: [{ type: "document" }] }] };
  return { ...chat, anthropic: req };
}

export async function createMessage(req: MessageCreate, workspaceId: string | null): Promise<ModelCall<Json | EventStream>> {
  const { row } = await resolveModel(req.model, workspaceId);
  const chat = toChatRequest(req, row.maxOutputTokens) as ChatCompletionRequest;
  assertChatCapable(row, chat);
  const beta = typeof req.anthropic_beta === "string" ? req.anthropic_beta : undefined;
  const bound = costBound(req, chat);
  const spec = { endpoint: "/v1/messages", model: row.id, ...maxChatBounds(row, bound) };

  const attempt = async (r: Routed): Promise<Answered> => {
    const native = r.node.adapter.messages?.(r.node, nativeBody(req, r.upstreamModel, row.maxOutputTokens), beta);
    if (native) {
      const res = await native;
      return req.stream ? { events: res } : { message: await readMessage(res) };
    }
    return req.stream ? { chunks: await openStreamOn(row, chat)(r) } : { completion: await completeOn(row, chat)(r) };
  };

  return new ModelCall(spec, async (m) => {
    const started = performance.now();
    const { result, routed, release } = await withFailover(row.id, attempt, undefined, m.ctx.attempt);
    const c = { m, row, nodeId: routed.node.id, started };
    if ("events" in result) return new EventStream(nativeEvents(result.events, release, c), { named: true, done: false });
    if ("chunks" in result) {
      const chunks = relayOpened(result.chunks, routed, release, { m, row, body: chat, includeUsage: true, started });
      return new EventStream(messageEvents(chunks, row.id), { named: true, done: false });
    }
    release();
    if ("message" in result) return chargedMessage(result.message, c);
    const { charge } = await unchargedCompletion(m, row, chat, result.completion, routed.node.id, started);
    await charge();
    return messageFromCompletion(result.completion, row.id);
  });
}
