// Gemini's wire format: an OpenAI chat completion request sent as Gemini's generateContent,
// its answers (and its stream's events) brought back as OpenAI's.
import type { ChatAdapter, Json } from "../adapter";
import { postForJson, postJson } from "../http";
import { embedOnGemini } from "./embeddings";
import { refuseModerations } from "../moderation-refusal";
import { methodPath } from "./method-path";
import { toGeminiRequest } from "./request";
import { toCompletion } from "./response";
import { geminiStreamTranslator } from "./stream";
import type { GeminiResponse } from "./types";

const modelOf = (body: Json) => String(body.model);

export const geminiAdapter: ChatAdapter = {
  async complete(target, body, { signal }) {
    const res = await postForJson<GeminiResponse>(target, methodPath(modelOf(body), "generateContent"), toGeminiRequest(body), "completion", signal);
    return toCompletion(res, modelOf(body));
  },
  async openStream(target, body, { signal }) {
    const path = `${methodPath(modelOf(body), "streamGenerateContent")}?alt=sse`;
    const response = await postJson(target, path, JSON.stringify(toGeminiRequest(body)), signal);
    return { response, translator: geminiStreamTranslator(modelOf(body)) };
  },
  embed: embedOnGemini,
  moderate: refuseModerations("Gemini's API"),
};
