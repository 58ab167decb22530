// Responses API <-> chat completions: the request a chat-only node is sent, and the output items,
// status and usage made from what it answered.
import { randomBase62 } from "../../kernel/ids";
import { tokenUsage, type OpenAIUsage } from "../chat/completion-shape";
import { itemId, outputText, toChatMessages, type Item } from "./items";
import type { ResponseCreate } from "./schema";

export type ResponsesUsage = {
  input_tokens: number;
  /** `cache_write_tokens` is absent from usage stored before it was kept. */
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

export function toChatRequest(req: ResponseCreate, conversation: Item[]): Record<string, unknown> {
  const messages = toChatMessages(conversation);
  // Instructions apply to this turn only; those of earlier turns are not carried over.
  if (req.instructions) messages.unshift({ role: "system", content: req.instructions });
  const format = req.text?.format;
  // The `mcp` tools become function tools in the gateway's own loop (mcp-run.ts).
  const functions = (req.tools ?? []).filter((t) => t.type === "function");
  return {
    model: req.model,
    messages,
    ...(req.temperature != null && { temperature: req.temperature }),
    ...(req.top_p != null && { top_p: req.top_p }),
    ...(req.max_output_tokens != null && { max_completion_tokens: req.max_output_tokens }),
    ...(req.parallel_tool_calls != null && { parallel_tool_calls: req.parallel_tool_calls }),
    ...(req.user && { user: req.user }),
    ...(functions.length && {
      tools: functions.map((t) => ({
        type: "function",
        function: { name: t.name, ...(t.description && { description: t.description }), ...(t.parameters && { parameters: t.parameters }), ...(t.strict != null && { strict: t.strict }) },
      })),
    }),
    ...(req.tool_choice && {
      tool_choice: typeof req.tool_choice === "string" ? req.tool_choice : { type: "function", function: { name: req.tool_choice.name } },
    }),
    ...(format?.type === "json_object" && { response_format: { type: "json_object" } }),
    ...(format?.type === "json_schema" && {
      response_format: { type: "json_schema", json_schema: { name: format.name, schema: format.schema, ...(format.strict != null && { strict: format.strict }) } },
    }),
  };
}

export function responsesUsage(usage: OpenAIUsage | undefined): ResponsesUsage {
  const u = tokenUsage(usage);
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: usage?.prompt_tokens_details?.cache_write_tokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

export type TurnOutcome = { status: "completed" | "incomplete"; incompleteDetails: { reason: string } | null };

export function outcomeOf(finishReason: unknown): TurnOutcome {
  if (finishReason === "length") return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
  return { status: "completed", incompleteDetails: null };
}

/** The output items of a (non-streamed) chat completion's first choice. */
export function outputFromCompletion(completion: Record<string, unknown>): { output: Item[]; outcome: TurnOutcome; usage: ResponsesUsage } {
  const choice = ((completion.choices as Record<string, unknown>[] | undefined) ?? [])[0] ?? {};
  const message = (choice.message ?? {}) as { content?: string | null; tool_calls?: { id?: string; function?: { name: string; arguments: string } }[] };
  const outcome = outcomeOf(choice.finish_reason);
  const status = outcome.status;
  const output: Item[] = [];
  if (message.content) {
    output.push({ id: itemId("msg"), type: "message", role: "assistant", status, content: [outputText(message.content)] });
  }
  for (const call of message.tool_calls ?? []) {
    if (!call.function) continue;
    output.push({ id: itemId("fc"), type: "function_call", call_id: call.id ?? `call_${randomBase62(24)}`, name: call.function.name, arguments: call.function.arguments, status });
  }
  return { output, outcome, usage: responsesUsage(completion.usage as OpenAIUsage | undefined) };
}
