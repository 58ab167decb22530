// Anthropic's wire format: an OpenAI chat completion request sent as Anthropic's Messages
// request (request.ts), its Message brought back as a chat.completion (response.ts) and its
// stream events as chunks (stream.ts).
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import type { ChatAdapter } from "../adapter";
import { postForJson, postJson } from "../http";
import { postMessages } from "../messages-passthrough";
import { refuseModerations } from "../moderation-refusal";
import { UpstreamFailure } from "../upstream-failure";
import { toMessagesRequest } from "./request";
import { completionOf } from "./response";
import { AnthropicStreamTranslator } from "./stream";

export const anthropicAdapter: ChatAdapter = {
  async complete(target, body, options) {
    const request = toMessagesRequest(body, options);
    const message = await postForJson<Message>(target, "/messages", request, "message", options.signal);
    if (message?.type !== "message" || !Array.isArray(message.content)) throw new UpstreamFailure("protocol", "the node sent an unreadable message", 502);
    return completionOf(message, request.model);
  },
  async openStream(target, body, options) {
    const request = toMessagesRequest(body, options);
    const response = await postJson(target, "/messages", JSON.stringify({ ...request, stream: true }), options.signal);
    return { response, translator: new AnthropicStreamTranslator(request.model) };
  },
  moderate: refuseModerations("Anthropic's Messages API"),
  messages: (target, body, beta, signal) => postMessages(target, body, beta, signal),
};
