// Vertex AI's adapter: a Claude model (`claude-*`) is Anthropic's on Vertex and is sent in
// Anthropic's format (claude.ts), every other model in Gemini's (gemini.ts); text embedding
// models through `:predict` (embeddings.ts). Failures are mapped once, here (errors.ts).
import type { ChatAdapter } from "../adapter";
import { refuseModerations } from "../moderation-refusal";
import { completeOnClaude, openClaudeStream, passMessages } from "./claude";
import { embedOnVertex } from "./embeddings";
import { onVertex } from "./errors";
import { completeOnGemini, openGeminiStream } from "./gemini";
import { publisherOf } from "./paths";

const isClaude = (model: unknown) => publisherOf(String(model)) === "anthropic";

export const vertexAdapter: ChatAdapter = {
  complete: (target, body, options) => onVertex(() => (isClaude(body.model) ? completeOnClaude : completeOnGemini)(target, body, options)),
  openStream: (target, body, options) => onVertex(() => (isClaude(body.model) ? openClaudeStream : openGeminiStream)(target, body, options)),
  embed: (target, body, options) => onVertex(() => embedOnVertex(target, body, options)),
  moderate: refuseModerations("Vertex AI's generateContent and Anthropic's Messages API"),
  // Gemini models answer /v1/messages through the chat translation (null here).
  messages: (target, body, beta, signal) => (isClaude(body.model) ? onVertex(() => passMessages(target, body, beta, signal)) : null),
};
