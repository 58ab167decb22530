// Gemini on Vertex: the body of `:generateContent` and `:streamGenerateContent?alt=sse` is
// Gemini's own, and so are its answers and stream events: gemini/'s translators serve as they are.
import type { CallOptions, Json, OpenedStream } from "../adapter";
import { postForJson, postJson, type UpstreamTarget } from "../http";
import { toGeminiRequest } from "../gemini/request";
import { toCompletion } from "../gemini/response";
import { geminiStreamTranslator } from "../gemini/stream";
import type { GeminiResponse } from "../gemini/types";
import { methodPath } from "./paths";

export async function completeOnGemini(target: UpstreamTarget, body: Json, { signal }: CallOptions): Promise<Json> {
  const model = String(body.model);
  const res = await postForJson<GeminiResponse>(target, methodPath(target.cloud, model, "generateContent"), toGeminiRequest(body), "completion", signal);
  return toCompletion(res, model);
}

export async function openGeminiStream(target: UpstreamTarget, body: Json, { signal }: CallOptions): Promise<OpenedStream> {
  const model = String(body.model);
  const path = `${methodPath(target.cloud, model, "streamGenerateContent")}?alt=sse`;
  const response = await postJson(target, path, JSON.stringify(toGeminiRequest(body)), signal);
  return { response, translator: geminiStreamTranslator(model) };
}
