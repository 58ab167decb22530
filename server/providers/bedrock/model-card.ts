// One Bedrock model (a foundation model, or an inference profile over one) as the gateway's model
// card, or null for a model that neither chats nor embeds (image, video, speech models...).
// Bedrock's list gives no token limits: Claude gets Anthropic's, other chat models a common
// window, the operator corrects them when pricing. Every card is unpriced (not served until an
// operator prices it).
import { DEFAULT_CONTEXT_LENGTH, DEFAULT_MAX_OUTPUT_TOKENS } from "../anthropic/models";
import { UNPRICED } from "../list-json";
import type { UpstreamModel } from "../openai-compatible/list-models";
import { foundationModelId, isAnthropicModel, isCohereEmbedding } from "./model-ids";
import type { FoundationModelSummary } from "./types";

/** A window and an output limit most current chat models on Bedrock allow (Llama, Mistral, Nova...). */
const CHAT_CONTEXT = 128_000;
const CHAT_MAX_OUTPUT = 8_192;
/** Titan's input limit; Cohere's is 512 tokens. */
const TITAN_EMBED_CONTEXT = 8_192;
const COHERE_EMBED_CONTEXT = 512;

/** The families that reason (extended thinking, a reasoning effort, or always). */
const REASONING = /claude-(3-7|sonnet-4|opus-4|haiku-4)|nova-2|deepseek\.r1|gpt-oss/;

const NO_CAPABILITIES = { json_mode: false, reasoning: false, streaming: false, structured_output: false, tools: false };

export function modelCard(id: string, summary: FoundationModelSummary | undefined, name?: string): UpstreamModel | null {
  const outputs = summary?.outputModalities ?? ["TEXT"];
  const type = outputs.includes("EMBEDDING") ? "embedding" : outputs.includes("TEXT") ? "chat" : null;
  if (!type) return null;
  const base = foundationModelId(id);
  const maker = (summary?.providerName ?? base.split(".")[0] ?? "amazon").toLowerCase();
  const inputs = (summary?.inputModalities ?? ["TEXT"]).map((m) => m.toLowerCase()).filter((m) => m === "text" || m === "image");
  const chat = type === "chat";
  const claude = isAnthropicModel(id);
  return {
    id,
    display_name: name ?? summary?.modelName ?? id,
    owned_by: maker,
    provider: maker,
    type,
    context_length: chat ? (claude ? DEFAULT_CONTEXT_LENGTH : CHAT_CONTEXT) : isCohereEmbedding(id) ? COHERE_EMBED_CONTEXT : TITAN_EMBED_CONTEXT,
    max_output_tokens: chat ? (claude ? DEFAULT_MAX_OUTPUT_TOKENS : CHAT_MAX_OUTPUT) : 1,
    knowledge_cutoff: "",
    deprecated: summary?.modelLifecycle?.status === "LEGACY",
    capabilities: chat
      ? { input_modalities: inputs.length ? inputs : ["text"], output_modalities: ["text"], json_mode: true, reasoning: REASONING.test(base), streaming: summary?.responseStreamingSupported ?? true, structured_output: true, tools: true }
      : { ...NO_CAPABILITIES, input_modalities: ["text"], output_modalities: ["embedding"] },
    pricing: UNPRICED,
  };
}
