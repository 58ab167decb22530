// OpenAI's embeddings request on Bedrock's embedding models, each in its InvokeModel body:
// Titan (`amazon.titan-embed-*`) embeds one text a call (the calls run side by side, a few at a
// time) and counts its tokens; Cohere (`cohere.embed-*`) takes up to 96 texts a call and counts
// none (the gateway then counts the input itself). Answered as OpenAI's list, floats or base64.
import type { CallOptions, Json } from "../adapter";
import { float32Base64, textsOf } from "../gemini/embeddings";
import type { UpstreamTarget } from "../http";
import { UpstreamFailure } from "../upstream-failure";
import { postBedrockJson } from "./call";
import { foundationModelId, isCohereEmbedding, isTitanEmbedding, modelPath } from "./model-ids";

const COHERE_BATCH = 96;
const TITAN_PARALLEL = 8;

type EmbeddingsRequest = { model: string; input: unknown; dimensions?: number; encoding_format?: string };
type Embedded = { vectors: number[][]; tokens?: number };

const incomplete = () => new UpstreamFailure("protocol", "the node sent incomplete embeddings", 502);

async function titan(target: UpstreamTarget, req: EmbeddingsRequest, texts: string[], signal?: AbortSignal): Promise<Embedded> {
  const v2 = foundationModelId(req.model).startsWith("amazon.titan-embed-text-v2");
  const out: { embedding?: number[]; inputTextTokenCount?: number }[] = [];
  for (let i = 0; i < texts.length; i += TITAN_PARALLEL) {
    const batch = texts.slice(i, i + TITAN_PARALLEL).map((inputText) =>
      postBedrockJson<{ embedding?: number[]; inputTextTokenCount?: number }>(target, modelPath(req.model, "invoke"), { inputText, ...(v2 && req.dimensions && { dimensions: req.dimensions }) }, "embeddings", signal),
    );
    out.push(...(await Promise.all(batch)));
  }
  if (out.some((r) => !Array.isArray(r.embedding))) throw incomplete();
  return { vectors: out.map((r) => r.embedding!), tokens: out.reduce((n, r) => n + (r.inputTextTokenCount ?? 0), 0) };
}

async function cohere(target: UpstreamTarget, req: EmbeddingsRequest, texts: string[], signal?: AbortSignal): Promise<Embedded> {
  const batches: string[][] = [];
  for (let i = 0; i < texts.length; i += COHERE_BATCH) batches.push(texts.slice(i, i + COHERE_BATCH));
  const answers = await Promise.all(
    batches.map(async (batch) => {
      const body = { texts: batch, input_type: "search_document", embedding_types: ["float"], ...(req.dimensions && { output_dimension: req.dimensions }) };
      const res = await postBedrockJson<{ embeddings?: number[][] | { float?: number[][] } }>(target, modelPath(req.model, "invoke"), body, "embeddings", signal);
      const vectors = Array.isArray(res.embeddings) ? res.embeddings : res.embeddings?.float;
      if (!Array.isArray(vectors) || vectors.length !== batch.length) throw incomplete();
      return vectors;
    }),
  );
  return { vectors: answers.flat() };
}

export async function embedOnBedrock(target: UpstreamTarget, body: Json, { signal }: CallOptions): Promise<Json> {
  const req = body as EmbeddingsRequest;
  const texts = textsOf(req.input);
  let embedded: Embedded;
  if (isTitanEmbedding(req.model)) embedded = await titan(target, req, texts, signal);
  else if (isCohereEmbedding(req.model)) embedded = await cohere(target, req, texts, signal);
  else {
    const message = `\`${req.model}\` is not one of Bedrock's embedding models this gateway speaks (amazon.titan-embed-*, cohere.embed-*).`;
    throw new UpstreamFailure("status", message, 400, { error: { message, type: "invalid_request_error", param: "model", code: "unsupported_model" } });
  }
  const base64 = req.encoding_format === "base64";
  return {
    object: "list",
    data: embedded.vectors.map((vector, index) => ({ object: "embedding", index, embedding: base64 ? float32Base64(vector) : vector })),
    model: req.model,
    ...(embedded.tokens && { usage: { prompt_tokens: embedded.tokens, total_tokens: embedded.tokens } }),
  };
}
