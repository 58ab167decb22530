// The adapter for each wire format.
import type { ChatAdapter } from "./adapter";
import { anthropicAdapter } from "./anthropic/chat";
import { geminiAdapter } from "./gemini/chat";
import { openaiAdapter } from "./openai-compatible/chat";
import { azureAdapter } from "./azure/chat";
import { bedrockAdapter } from "./bedrock/chat";
import { vertexAdapter } from "./vertex/chat";
import type { Wire } from "./wire";

const ADAPTERS: Record<Wire, ChatAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  azure: azureAdapter,
  bedrock: bedrockAdapter,
  vertex: vertexAdapter,
};

export function adapterFor(wire: Wire | undefined): ChatAdapter {
  return ADAPTERS[wire ?? "openai"];
}
