// OpenAI's embeddings request -> Vertex's `:predict` on a text embedding model
// (`{instances: [{content}], parameters: {outputDimensionality}}`), its predictions -> OpenAI's
// list, floats or base64 as asked. Vertex counts each text's tokens (`statistics.token_count`):
// the answer's usage is their sum, billed as the node counted. Texts go in batches side by side:
// gemini-embedding-001 takes one text a call, the text-embedding models up to 250 (and about
// 20,000 tokens: a batch is also cut at a length budget).
import type { CallOptions, Json } from "../adapter";
import { postForJson, type UpstreamTarget } from "../http";
import { float32Base64, textsOf } from "../gemini/embeddings";
import { UpstreamFailure } from "../upstream-failure";
import { methodPath } from "./paths";

type EmbeddingsRequest = { model: string; input: unknown; dimensions?: number; encoding_format?: string };
type Prediction = { embeddings?: { values?: unknown; statistics?: { token_count?: number } } };
type PredictResponse = { predictions?: Prediction[] };

/** About 15,000 tokens of text at four characters a token, under Vertex's 20,000 per call. */
const CHARS_PER_CALL = 60_000;

const textsPerCall = (model: string) => (/^gemini-embedding/.test(model) ? 1 : 250);

function batchesOf(texts: string[], model: string): string[][] {
  const batches: string[][] = [];
  let chars = 0;
  for (const text of texts) {
    const last = batches.at(-1);
    if (last && last.length < textsPerCall(model) && chars + text.length <= CHARS_PER_CALL) {
      last.push(text);
      chars += text.length;
    } else {
      batches.push([text]);
      chars = text.length;
    }
  }
  return batches;
}

async function predict(target: UpstreamTarget, req: EmbeddingsRequest, batch: string[], signal?: AbortSignal): Promise<{ vectors: number[][]; tokens: number }> {
  const body = { instances: batch.map((content) => ({ content })), ...(req.dimensions && { parameters: { outputDimensionality: req.dimensions } }) };
  const res = await postForJson<PredictResponse>(target, methodPath(target.cloud, req.model, "predict"), body, "embeddings", signal);
  const predictions = res.predictions ?? [];
  const vectors = predictions.map((p) => p.embeddings?.values);
  if (vectors.length !== batch.length || vectors.some((v) => !Array.isArray(v))) throw new UpstreamFailure("protocol", "the node sent incomplete embeddings", 502);
  return { vectors: vectors as number[][], tokens: predictions.reduce((n, p) => n + (p.embeddings?.statistics?.token_count ?? 0), 0) };
}

export async function embedOnVertex(target: UpstreamTarget, body: Json, { signal }: CallOptions): Promise<Json> {
  const req = body as EmbeddingsRequest;
  const answers = await Promise.all(batchesOf(textsOf(req.input), req.model).map((batch) => predict(target, req, batch, signal)));
  const base64 = req.encoding_format === "base64";
  const tokens = answers.reduce((n, a) => n + a.tokens, 0);
  return {
    object: "list",
    data: answers.flatMap((a) => a.vectors).map((vector, index) => ({ object: "embedding", index, embedding: base64 ? float32Base64(vector) : vector })),
    model: req.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
