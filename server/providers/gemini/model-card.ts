// One model of Gemini's list -> the gateway's model card (ZModelCard's shape), or null for a
// model that neither generates content nor embeds (image, video, audio-only, AQA models...).
// Every price is "0" and the card "unpriced": the catalog does not serve it until priced.
import type { UpstreamModel } from "../openai-compatible/list-models";
import { UNPRICED } from "../list-json";
import type { GeminiModel } from "./types";

const NO_CAPABILITIES = { json_mode: false, reasoning: false, streaming: false, structured_output: false, tools: false };

export function modelCard(model: GeminiModel): UpstreamModel | null {
  const methods = model.supportedGenerationMethods ?? [];
  const type = methods.includes("generateContent") ? "chat" : methods.includes("embedContent") ? "embedding" : null;
  if (!type) return null;
  const id = model.name.replace(/^models\//, "");
  const capabilities =
    type === "chat"
      ? { input_modalities: ["text", "image"], output_modalities: ["text"], json_mode: true, reasoning: model.thinking === true, streaming: true, structured_output: true, tools: true }
      : { ...NO_CAPABILITIES, input_modalities: ["text"], output_modalities: ["embedding"] };
  return {
    id,
    display_name: model.displayName || id,
    owned_by: "google",
    provider: "google",
    type,
    context_length: Math.max(1, model.inputTokenLimit ?? 1),
    max_output_tokens: Math.max(1, model.outputTokenLimit ?? 1),
    knowledge_cutoff: "",
    deprecated: false,
    capabilities,
    pricing: UNPRICED,
  };
}
