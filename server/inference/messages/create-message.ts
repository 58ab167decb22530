// POST /v1/messages on an OpenAI-format node: the request becomes a chat completion (to-chat.ts),
// admitted, routed and metered as one, and its answer (or stream) becomes Anthropic's Message (or
// its events). A max_tokens above the model's output limit is lowered to it: coding agents ask
// for more than many models give, and a 400 would stop them.
import { ModelCall } from "../../admission/admit";
import { EventStream } from "../../kernel/event-stream";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { maxChatCost, maxChatTokens } from "../../routing/catalog/pricing";
import { completeOnNode, streamOnNode } from "../chat/call-node";
import { assertChatCapable } from "../chat/create-completion";
import type { ChatCompletionRequest } from "../chat/schema";
import { messageFromCompletion } from "./from-chat";
import type { MessageCreate } from "./schema";
import { messageEvents } from "./stream-events";
import { toChatRequest } from "./to-chat";

type Json = Record<string, unknown>;

export async function createMessage(req: MessageCreate): Promise<ModelCall<Json | EventStream>> {
  const { row } = await resolveModel(req.model);
  const chat = toChatRequest(req, row.maxOutputTokens) as ChatCompletionRequest;
  assertChatCapable(row, chat);
  const spec = { endpoint: "/v1/messages", model: row.id, maxCost: maxChatCost(row, chat), tokens: maxChatTokens(row, chat) };
  return new ModelCall(spec, async (metering) => {
    if (!req.stream) return messageFromCompletion(await completeOnNode(metering, row, chat), row.id);
    const chunks = await streamOnNode(metering, row, chat, true);
    return new EventStream(messageEvents(chunks, row.id), { named: true, done: false });
  });
}
