// Vertex has no practical list of the publisher models a project may call, so a node's models are
// the current ones known here (Gemini, Claude on Vertex, text embeddings), as unpriced model cards
// built as Gemini's and Anthropic's lists make theirs. Whether the node works is asked of Vertex
// itself: a countTokens call on the first Gemini model (free, and authorised like a prediction),
// which fails when no token can be had or the service account may not call Vertex in the project
// (a location that does not offer the model answers 404, which says the credentials passed).
import type { UpstreamModel } from "../openai-compatible/list-models";
import { request, type UpstreamTarget } from "../http";
import { modelCard as anthropicCard, DEFAULT_CONTEXT_LENGTH } from "../anthropic/models";
import { modelCard as geminiCard } from "../gemini/model-card";
import type { GeminiModel } from "../gemini/types";
import { UpstreamFailure } from "../upstream-failure";
import { onVertex } from "./errors";
import { methodPath } from "./paths";

const CHAT = ["generateContent", "countTokens"];
const EMBED = ["embedContent"];
const M = 1_048_576;

export const GEMINI_MODELS: GeminiModel[] = [
  { name: "gemini-2.5-flash", displayName: "Gemini 2.5 Flash", inputTokenLimit: M, outputTokenLimit: 65_536, supportedGenerationMethods: CHAT, thinking: true },
  { name: "gemini-2.5-pro", displayName: "Gemini 2.5 Pro", inputTokenLimit: M, outputTokenLimit: 65_536, supportedGenerationMethods: CHAT, thinking: true },
  { name: "gemini-2.5-flash-lite", displayName: "Gemini 2.5 Flash-Lite", inputTokenLimit: M, outputTokenLimit: 65_536, supportedGenerationMethods: CHAT, thinking: true },
  { name: "gemini-3-pro-preview", displayName: "Gemini 3 Pro (preview)", inputTokenLimit: M, outputTokenLimit: 65_536, supportedGenerationMethods: CHAT, thinking: true },
  { name: "gemini-2.0-flash-001", displayName: "Gemini 2.0 Flash", inputTokenLimit: M, outputTokenLimit: 8_192, supportedGenerationMethods: CHAT, thinking: false },
  { name: "gemini-2.0-flash-lite-001", displayName: "Gemini 2.0 Flash-Lite", inputTokenLimit: M, outputTokenLimit: 8_192, supportedGenerationMethods: CHAT, thinking: false },
  { name: "gemini-embedding-001", displayName: "Gemini Embedding", inputTokenLimit: 2_048, outputTokenLimit: 1, supportedGenerationMethods: EMBED },
  { name: "text-embedding-005", displayName: "Text Embedding 005", inputTokenLimit: 2_048, outputTokenLimit: 1, supportedGenerationMethods: EMBED },
  { name: "text-multilingual-embedding-002", displayName: "Text Multilingual Embedding 002", inputTokenLimit: 2_048, outputTokenLimit: 1, supportedGenerationMethods: EMBED },
];

/** Claude on Vertex: its versioned ids, its output limit, whether it thinks. */
export const CLAUDE_MODELS = [
  { id: "claude-opus-4-5@20251101", name: "Claude Opus 4.5", maxOutput: 64_000, thinking: true },
  { id: "claude-sonnet-4-5@20250929", name: "Claude Sonnet 4.5", maxOutput: 64_000, thinking: true },
  { id: "claude-haiku-4-5@20251001", name: "Claude Haiku 4.5", maxOutput: 64_000, thinking: true },
  { id: "claude-opus-4-1@20250805", name: "Claude Opus 4.1", maxOutput: 32_000, thinking: true },
  { id: "claude-sonnet-4@20250514", name: "Claude Sonnet 4", maxOutput: 64_000, thinking: true },
  { id: "claude-3-5-haiku@20241022", name: "Claude Haiku 3.5", maxOutput: 8_192, thinking: false },
];

export function knownModels(): UpstreamModel[] {
  const gemini = GEMINI_MODELS.flatMap((m) => geminiCard(m) ?? []);
  const claude = CLAUDE_MODELS.map((m) =>
    anthropicCard({
      type: "model",
      id: m.id,
      display_name: m.name,
      created_at: "",
      max_input_tokens: DEFAULT_CONTEXT_LENGTH,
      max_tokens: m.maxOutput,
      capabilities: { thinking: { supported: m.thinking } },
    } as Parameters<typeof anthropicCard>[0]),
  );
  return [...gemini, ...claude];
}

/** The node's health: one authenticated, free call; then the known models. */
export async function listVertexModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]> {
  const path = methodPath(target.cloud, GEMINI_MODELS[0]!.name, "countTokens");
  const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "ping" }] }] });
  try {
    const res = await onVertex(() => request(target, "POST", path, { body, headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(timeoutMs) }));
    await res.body.dump();
  } catch (err) {
    // A location without that model answers 404 only once the token and the permission passed (Google answers 403 otherwise).
    if (!(err instanceof UpstreamFailure && err.kind === "status" && err.status === 404)) throw err;
  }
  return knownModels();
}
