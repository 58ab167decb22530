// POST /v1/messages/count_tokens on a node that does not count them itself: the prompt's tokens
// as the chat request it becomes (system, turns, tool results, tools), with the o200k tokenizer
// (js-tiktoken; loaded by the first count) plus the chat template's few tokens per message, and a
// flat count per image. An estimate, as Anthropic's own count is for models it does not run.
import { allowedModels } from "../../admission/admit";
import type { Principal } from "../../identity/principal";
import { errors } from "../../kernel/errors";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import type { CountTokens } from "./schema";
import { promptOf } from "./to-chat";

type Json = Record<string, unknown>;

/** Tokens a chat template adds per message (role markers), and to prime the reply. */
const PER_MESSAGE = 3;
const PRIMING = 3;
/** Tokens counted for each image (an image of about 1.15 megapixels, the largest sent unscaled). */
const PER_IMAGE = 1568;

let tokenizer: Promise<{ encode(text: string): number[] }> | undefined;

async function loadTokenizer() {
  const [{ Tiktoken }, { default: ranks }] = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]);
  return new Tiktoken(ranks);
}

function textAndImages(content: unknown): { text: string; images: number } {
  if (typeof content === "string") return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: "", images: 0 };
  let text = "";
  let images = 0;
  for (const part of content as Json[]) {
    if (part.type === "image_url") images += 1;
    else if (typeof part.text === "string") text += part.text;
  }
  return { text, images };
}

export async function countTokens(principal: Principal | null, req: CountTokens): Promise<{ input_tokens: number }> {
  // 404 for a model the gateway does not have, or that the caller's plan or key does not allow (as GET /v1/models/{id}).
  const allowed = await allowedModels(principal);
  if (allowed && !allowed.has(req.model)) throw errors.modelNotFound(req.model);
  await resolveModel(req.model);
  const encoder = await (tokenizer ??= loadTokenizer());
  const prompt = promptOf(req);
  let tokens = PRIMING;
  for (const message of prompt.messages as Json[]) {
    const { text, images } = textAndImages(message.content);
    const calls = message.tool_calls ? JSON.stringify(message.tool_calls) : "";
    tokens += PER_MESSAGE + encoder.encode(text + calls).length + images * PER_IMAGE;
  }
  if (prompt.tools) tokens += encoder.encode(JSON.stringify(prompt.tools)).length;
  return { input_tokens: tokens };
}
