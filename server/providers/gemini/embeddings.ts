// OpenAI's embeddings request -> Gemini's batchEmbedContents (100 texts a call, Gemini's limit;
// the calls run side by side), its vectors -> OpenAI's list, as floats or, with
// `encoding_format: "base64"`, as base64 of little-endian float32s (what OpenAI sends). Gemini
// counts no tokens: the answer has no `usage`, and the gateway counts the input itself.
import type { CallOptions, Json } from "../adapter";
import { postForJson, type UpstreamTarget } from "../http";
import { UpstreamFailure } from "../upstream-failure";
import { methodPath } from "./method-path";
import { geminiModelName } from "./request";
import type { GeminiBatchEmbedRequest, GeminiBatchEmbedResponse } from "./types";

const BATCH = 100;

type EmbeddingsRequest = { model: string; input: unknown; dimensions?: number; encoding_format?: string };

export async function embedOnGemini(target: UpstreamTarget, body: Json, { signal }: CallOptions): Promise<Json> {
  const req = body as EmbeddingsRequest;
  const texts = textsOf(req.input);
  const model = `models/${geminiModelName(req.model)}`;
  const batches: string[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH));
  const answers = await Promise.all(
    batches.map(async (batch) => {
      const request: GeminiBatchEmbedRequest = {
        requests: batch.map((text) => ({ model, content: { parts: [{ text }] }, ...(req.dimensions && { outputDimensionality: req.dimensions }) })),
      };
      const res = await postForJson<GeminiBatchEmbedResponse>(target, methodPath(req.model, "batchEmbedContents"), request, "embeddings", signal);
      const vectors = (res.embeddings ?? []).map((e) => e.values);
      if (vectors.length !== batch.length || vectors.some((v) => !Array.isArray(v))) throw new UpstreamFailure("protocol", "the node sent incomplete embeddings", 502);
      return vectors as number[][];
    }),
  );
  const base64 = req.encoding_format === "base64";
  return {
    object: "list",
    data: answers.flat().map((vector, index) => ({ object: "embedding", index, embedding: base64 ? float32Base64(vector) : vector })),
    model: req.model,
  };
}

/** The inputs as texts. Gemini embeds text only: token ids (which tokenizer's?) are refused. */
export function textsOf(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.every((i) => typeof i === "string")) return input as string[];
  const message = "This model's provider embeds text only: send `input` as a string or an array of strings, not token ids.";
  throw new UpstreamFailure("status", message, 400, { error: { message, type: "invalid_request_error", param: "input", code: "unsupported_input" } });
}

export function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString("base64");
}
