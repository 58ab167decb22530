// What a node serves, asked in its wire format: used to discover a node's models and as its
// health check. OpenAI-format nodes list ids (and, like the built-in node, may publish full model
// cards); Anthropic's and Gemini's lists become model cards with no price (pricing_status
// "unpriced": not served until an operator prices them).
import type { UpstreamTarget } from "./http";
import { CLOUD_SPECS } from "./cloud-wires";
import { listAnthropicModels } from "./anthropic/models";
import { listGeminiModels } from "./gemini/models";
import { listUpstreamModels, type UpstreamModel } from "./openai-compatible/list-models";

export type { UpstreamModel };

export function listNodeModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]> {
  const wire = target.wire ?? "openai";
  switch (wire) {
    case "anthropic":
      return listAnthropicModels(target, timeoutMs);
    case "gemini":
      return listGeminiModels(target, timeoutMs);
    case "azure":
    case "bedrock":
    case "vertex":
      return CLOUD_SPECS[wire].listModels(target, timeoutMs);
    default:
      return listUpstreamModels(target.baseUrl, target.apiKey, timeoutMs);
  }
}
