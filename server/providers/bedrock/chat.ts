// Bedrock's adapter: Claude models speak Anthropic's Messages API over InvokeModel (the
// Anthropic translators, invoke.ts), every other chat model the Converse API (converse-*.ts);
// embeddings are InvokeModel bodies of their own (embeddings.ts). `/v1/messages` passes through
// to Claude as the client sent it.
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import type { ChatAdapter, Json } from "../adapter";
import { toMessagesRequest } from "../anthropic/request";
import { completionOf as anthropicCompletion } from "../anthropic/response";
import { AnthropicStreamTranslator } from "../anthropic/stream";
import { refuseModerations } from "../moderation-refusal";
import { UpstreamFailure } from "../upstream-failure";
import { postBedrockJson, postForStream } from "./call";
import { completionOf } from "./converse-response";
import { toConverseRequest } from "./converse-request";
import { ConverseStreamTranslator } from "./converse-stream";
import { embedOnBedrock } from "./embeddings";
import { asSse, type StreamFrame } from "./event-stream";
import { invokeAnthropic } from "./invoke";
import { isAnthropicModel, modelPath } from "./model-ids";
import type { ConverseResponse } from "./types";

const modelOf = (body: Json) => String(body.model);

/** Converse's frames as SSE: each one `{"<eventType>": payload}`, the SDK's ConverseStreamOutput shape (exceptions included). */
const converseSse = (frame: StreamFrame) => `data: ${JSON.stringify({ [frame.type]: frame.payload })}\n\n`;

/** Anthropic's request for Claude on Bedrock: its `metadata` (the end user) is not a field Bedrock takes. */
function claudeRequest(body: Json, maxOutputTokens: number): Json {
  const { metadata: _metadata, ...request } = toMessagesRequest(body, { maxOutputTokens });
  return request;
}

async function readMessage(res: Awaited<ReturnType<typeof invokeAnthropic>>): Promise<Message> {
  const message = (await res.body.json().catch(() => null)) as Message | null;
  if (message?.type !== "message" || !Array.isArray(message.content)) throw new UpstreamFailure("protocol", "the node sent an unreadable message", 502);
  return message;
}

export const bedrockAdapter: ChatAdapter = {
  async complete(target, body, options) {
    const model = modelOf(body);
    if (isAnthropicModel(model)) return anthropicCompletion(await readMessage(await invokeAnthropic(target, model, claudeRequest(body, options.maxOutputTokens), false, options.signal)), model);
    return completionOf(await postBedrockJson<ConverseResponse>(target, modelPath(model, "converse"), toConverseRequest(body), "completion", options.signal), model);
  },
  async openStream(target, body, options) {
    const model = modelOf(body);
    if (isAnthropicModel(model)) {
      const response = await invokeAnthropic(target, model, claudeRequest(body, options.maxOutputTokens), true, options.signal);
      return { response, translator: new AnthropicStreamTranslator(model) };
    }
    const response = asSse(await postForStream(target, modelPath(model, "converse-stream"), toConverseRequest(body), options.signal), converseSse);
    return { response, translator: new ConverseStreamTranslator(model) };
  },
  embed: embedOnBedrock,
  moderate: refuseModerations("Bedrock's runtime API"),
  messages(target, body, beta, signal) {
    const model = modelOf(body);
    return isAnthropicModel(model) ? invokeAnthropic(target, model, body, body.stream === true, signal, beta) : null;
  },
};
