// What a wire format's adapter does for the gateway. The internal call is an OpenAI chat
// completion request (the body /v1/chat/completions takes, with `model` already the node's own
// name); an adapter sends it in its format and hands back OpenAI's shapes: a `chat.completion`,
// or, for a stream, the node's response with a translator from its events to
// `chat.completion.chunk` payloads (none for the OpenAI format: its chunks pass through as sent).
import type { UpstreamResponse, UpstreamTarget } from "./http";

export type Json = Record<string, unknown>;

/**
 * Turns a node's stream events into OpenAI chunk payloads (JSON text), one event at a time: a
 * small state machine, fed each SSE event's data in order. The last payloads it returns carry
 * the usage as OpenAI's final chunk does (`choices: []`, `usage`), so the relay bills a
 * translated stream as it bills any other.
 */
export type StreamTranslator = {
  /** One SSE event's data -> the chunk payloads it makes (often none or one). */
  push(data: string): string[];
  /** The node's body ended: the payloads still owed (the usage chunk, when the format sends it last). */
  end(): string[];
  /** Whether the node said its answer is complete (Anthropic's message_stop, Gemini's finish reason). */
  readonly done: boolean;
};

export type OpenedStream = { response: UpstreamResponse; translator?: StreamTranslator };

/** What the gateway knows about the call beside its body. */
export type CallOptions = {
  signal?: AbortSignal;
  /** The model's output limit: the `max_tokens` a format that requires one gets when the request set none. */
  maxOutputTokens: number;
};

export type ChatAdapter = {
  /** A non-streamed chat completion, answered as OpenAI's `chat.completion` (usage in OpenAI's terms). */
  complete(target: UpstreamTarget, body: Json, options: CallOptions): Promise<Json>;
  /** Opens a streamed chat completion; resolves once the node's first byte arrived. */
  openStream(target: UpstreamTarget, body: Json, options: CallOptions): Promise<OpenedStream>;
  /**
   * Embeddings: OpenAI's request in, OpenAI's `list` out, for formats that have them. `usage` only
   * when the node counted (the gateway counts itself when it did not).
   */
  embed?(target: UpstreamTarget, body: Json, options: CallOptions): Promise<Json>;
  /**
   * Moderations: OpenAI's request in (`model` the node's own name), OpenAI's moderation object
   * out. A format without a moderation endpoint refuses it (moderation-refusal.ts).
   */
  moderate(target: UpstreamTarget, body: Json, options: CallOptions): Promise<Json>;
  /**
   * Anthropic's Messages API passed through as the client sent it (`model` already the node's
   * name), for a node whose model speaks it natively (Anthropic's API; Claude on Bedrock or
   * Vertex). Resolves to the node's answer as Anthropic writes it: its JSON message, or, when
   * `body.stream`, a body of Anthropic's server-sent events. Null: this model does not, and the
   * call is translated to a chat completion instead.
   */
  messages?(target: UpstreamTarget, body: Json, beta: string | undefined, signal?: AbortSignal): Promise<UpstreamResponse> | null;
};
