// Claude on Vertex: Anthropic's Messages request as the body of `:rawPredict` (a stream:
// `:streamRawPredict`), the model named by the path instead of the body, the API version in the
// body (`anthropic_version`) instead of a header. What comes back is Anthropic's own: its Message,
// its server-sent events.
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import type { CallOptions, Json, OpenedStream } from "../adapter";
import { post, postForJson, type UpstreamResponse, type UpstreamTarget } from "../http";
import { toMessagesRequest } from "../anthropic/request";
import { completionOf } from "../anthropic/response";
import { AnthropicStreamTranslator } from "../anthropic/stream";
import { UpstreamFailure } from "../upstream-failure";
import { methodPath } from "./paths";

export const ANTHROPIC_VERSION = "vertex-2023-10-16";

/** A Messages request as Vertex takes it: no `model`, the Vertex API version. */
export function vertexMessagesBody(request: object): Json {
  const { model: _model, ...rest } = request as Json;
  return { ...rest, anthropic_version: ANTHROPIC_VERSION };
}

const rawPredictPath = (target: UpstreamTarget, model: string, stream: boolean) => methodPath(target.cloud, model, stream ? "streamRawPredict" : "rawPredict");

export async function completeOnClaude(target: UpstreamTarget, body: Json, options: CallOptions): Promise<Json> {
  const request = toMessagesRequest(body, options);
  const message = await postForJson<Message>(target, rawPredictPath(target, request.model, false), vertexMessagesBody(request), "message", options.signal);
  if (message?.type !== "message" || !Array.isArray(message.content)) throw new UpstreamFailure("protocol", "the node sent an unreadable message", 502);
  return completionOf(message, request.model);
}

export async function openClaudeStream(target: UpstreamTarget, body: Json, options: CallOptions): Promise<OpenedStream> {
  const request = toMessagesRequest(body, options);
  const payload = JSON.stringify({ ...vertexMessagesBody(request), stream: true });
  const response = await post(target, rawPredictPath(target, request.model, true), payload, headers(undefined), options.signal);
  return { response, translator: new AnthropicStreamTranslator(request.model) };
}

function headers(beta: string | undefined): Record<string, string> {
  return { "content-type": "application/json", accept: "application/json, text/event-stream", ...(beta && { "anthropic-beta": beta }) };
}

/** Anthropic's Messages API passed through as the client sent it (cache breakpoints, thinking, betas). */
export function passMessages(target: UpstreamTarget, body: Json, beta: string | undefined, signal?: AbortSignal): Promise<UpstreamResponse> {
  const model = String(body.model);
  return post(target, rawPredictPath(target, model, body.stream === true), JSON.stringify(vertexMessagesBody(body)), headers(beta), signal);
}
