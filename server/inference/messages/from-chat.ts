// A chat completion as Anthropic's Message: reasoning as a thinking block, the text, tool calls as
// tool_use blocks; finish reasons as stop reasons; usage with cache reads apart from the input
// (Anthropic's input_tokens does not count them).
import { randomBase62 } from "../../kernel/ids";
import type { OpenAIUsage } from "../chat/completion-shape";

type Json = Record<string, unknown>;

export type StopReason = "end_turn" | "max_tokens" | "tool_use" | "refusal";

/** OpenAI's finish reason as Anthropic's stop reason. */
export function stopReasonOf(finish: unknown): StopReason {
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  if (finish === "content_filter") return "refusal";
  return "end_turn";
}

export type MessageUsage = { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };

export function usageOf(usage: OpenAIUsage | null | undefined): MessageUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const written = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached - written),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
  };
}

export const newMessageId = () => `msg_${randomBase62(24)}`;

/** The arguments of a tool call as its input object ({} when the node sent none or not JSON). */
export function toolInput(args: unknown): unknown {
  if (typeof args !== "string" || !args.trim()) return {};
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

export function messageFromCompletion(completion: Json, modelId: string): Json {
  const choice = ((completion.choices as Json[] | undefined) ?? [])[0] ?? {};
  const message = (choice.message ?? {}) as Json;
  const content: Json[] = [];
  if (typeof message.reasoning_content === "string" && message.reasoning_content) content.push({ type: "thinking", thinking: message.reasoning_content, signature: "" });
  if (typeof message.content === "string" && message.content) content.push({ type: "text", text: message.content });
  for (const call of (message.tool_calls as Json[] | undefined) ?? []) {
    const fn = (call.function ?? {}) as Json;
    content.push({ type: "tool_use", id: call.id, name: fn.name, input: toolInput(fn.arguments) });
  }
  return {
    id: newMessageId(),
    type: "message",
    role: "assistant",
    model: modelId,
    content,
    stop_reason: stopReasonOf(choice.finish_reason),
    stop_sequence: null,
    usage: usageOf(completion.usage as OpenAIUsage | undefined),
  };
}
