// Claude on Bedrock: Anthropic's Messages API over InvokeModel (and, streamed,
// InvokeModelWithResponseStream). The body is Anthropic's with `anthropic_version` in it and the
// model in the path; betas go in the body. A stream's `chunk` frames carry Anthropic's events as
// base64 JSON: they are handed on as Anthropic's server-sent events, so the Messages passthrough
// and the Anthropic stream translator read them as they read Anthropic's own.
import type { Json } from "../adapter";
import type { UpstreamResponse, UpstreamTarget } from "../http";
import { postForAnswer, postForStream } from "./call";
import { asSse, type StreamFrame } from "./event-stream";
import { anthropicErrorType, streamFailureMessage } from "./failures";
import { modelPath } from "./model-ids";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** An Anthropic request as InvokeModel's body: no model (it is in the path), no stream flag (the path says it), Bedrock's version. */
export function invokeBody(body: Json, beta: string | undefined): Json {
  const { model: _model, stream: _stream, anthropic_version: _version, ...rest } = body;
  const betas = beta?.split(",").map((b) => b.trim()).filter(Boolean);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest, ...(betas?.length && { anthropic_beta: betas }) };
}

const sse = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;

/** A frame of InvokeModelWithResponseStream as Anthropic's SSE text. */
export function anthropicSse(frame: StreamFrame): string {
  if (frame.exception) {
    const message = streamFailureMessage(frame.type, String(frame.payload.message ?? ""));
    return sse("error", JSON.stringify({ type: "error", error: { type: anthropicErrorType(frame.type), message } }));
  }
  if (frame.type !== "chunk" || typeof frame.payload.bytes !== "string") return "";
  const json = Buffer.from(frame.payload.bytes, "base64").toString("utf8");
  const type = (JSON.parse(json) as { type?: string }).type ?? "message";
  return sse(type, json);
}

/** An Anthropic Messages request on the node: its JSON message, or, when `stream`, Anthropic's events. */
export async function invokeAnthropic(target: UpstreamTarget, model: string, body: Json, stream: boolean, signal?: AbortSignal, beta?: string): Promise<UpstreamResponse> {
  const request = invokeBody(body, beta);
  if (!stream) return postForAnswer(target, modelPath(model, "invoke"), request, signal);
  return asSse(await postForStream(target, modelPath(model, "invoke-with-response-stream"), request, signal), anthropicSse);
}
