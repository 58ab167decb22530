// POST /v1/embeddings: the hashed n-gram model, with OpenAI's input forms, `dimensions` and
// `encoding_format`. prompt_tokens are counted with the real tokenizer.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { ApiError, clientGone, readJson, send, sleep } from "./http";
import { modelCard, requireModel } from "./models";
import { EMBED_DIMENSIONS, embedding, toBase64 } from "./ngram-embed";
import { countTokens, decode, knownTokens } from "./tokenizer";

const MAX_INPUTS = 2048;

const TokenIds = z.array(z.number().int().nonnegative()).min(1);
const Input = z.union([z.string(), z.array(z.string()).min(1), TokenIds, z.array(TokenIds).min(1)]);

const EmbeddingRequest = z.looseObject({
  model: z.string(),
  input: Input,
  dimensions: z.number().int().min(1).max(EMBED_DIMENSIONS).nullish(),
  encoding_format: z.enum(["float", "base64"]).nullish(),
  user: z.string().nullish(),
});

function parse(body: unknown): z.infer<typeof EmbeddingRequest> {
  const result = EmbeddingRequest.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = String(issue.path[0] ?? "input");
  if (issue.code === "invalid_type" && issue.message.includes("undefined")) {
    throw new ApiError(400, "missing_required_parameter", `Missing required parameter: '${param}'.`, param);
  }
  const hint = param === "input" ? "expected a non-empty string, array of strings, array of token ids, or array of token-id arrays" : issue.message;
  throw new ApiError(400, "invalid_value", `Invalid value for '${param}': ${hint}`, param);
}

/** The input as texts, each with its token count. */
function texts(input: z.infer<typeof Input>): { text: string; tokens: number }[] {
  const items: (string | number[])[] = typeof input === "string" ? [input] : typeof input[0] === "number" ? [input as number[]] : (input as (string | number[])[]);
  if (items.length > MAX_INPUTS) throw new ApiError(400, "invalid_value", `'input' may hold at most ${MAX_INPUTS} items.`, "input");
  return items.map((item, i) => {
    if (typeof item === "string") {
      if (!item) throw new ApiError(400, "invalid_value", `'input[${i}]' is an empty string.`, "input");
      return { text: item, tokens: countTokens(item) };
    }
    if (!knownTokens(item)) throw new ApiError(400, "invalid_value", `'input[${i}]' holds a token id outside the vocabulary.`, "input");
    return { text: decode(item), tokens: item.length };
  });
}

export async function embeddings(req: IncomingMessage, res: ServerResponse, latencyMs = 0): Promise<void> {
  const body = await readJson(req);
  const model = requireModel(body, "embedding", "v1/embeddings");
  const request = parse(body);
  const items = texts(request.input);
  const limit = Number(modelCard(model)?.context_length ?? 8192);
  const tooLong = items.findIndex((x) => x.tokens > limit);
  if (tooLong >= 0) {
    throw new ApiError(400, "context_length_exceeded", `'input[${tooLong}]' has ${items[tooLong]!.tokens} tokens; this model's maximum is ${limit}.`, "input");
  }
  if (!(await sleep(latencyMs, clientGone(res)))) return;
  const base64 = request.encoding_format === "base64";
  const data = items.map((item, index) => {
    const vector = embedding(item.text, request.dimensions ?? EMBED_DIMENSIONS);
    return { object: "embedding", index, embedding: base64 ? toBase64(vector) : Array.from(vector) };
  });
  const tokens = items.reduce((sum, x) => sum + x.tokens, 0);
  send(res, 200, { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}
