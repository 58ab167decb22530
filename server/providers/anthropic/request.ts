// An OpenAI chat completion request as an Anthropic Messages request (docs/PROVIDERS.md has the
// table). Fields Anthropic has no place for (n, logprobs, penalties, seed, logit_bias, ...) are
// not sent: DROPPED_FIELDS names them.
import type { MessageCreateParamsBase, Tool, ToolChoice } from "@anthropic-ai/sdk/resources/messages";
import type { CallOptions, Json } from "../adapter";
import { conversationOf } from "./messages";
import { JSON_TOOL, jsonTool } from "./json-mode";
import { thinkingOf } from "./thinking";

/** OpenAI fields an Anthropic node cannot take: left out of the request it is sent. */
export const DROPPED_FIELDS = [
  "n",
  "logprobs",
  "top_logprobs",
  "frequency_penalty",
  "presence_penalty",
  "seed",
  "logit_bias",
  "metadata",
  "store",
  "service_tier",
  "prediction",
  "modalities",
  "audio",
  "web_search_options",
  "stream_options",
  "verbosity",
  "prompt_cache_key",
  "safety_identifier",
  "functions",
  "function_call",
] as const;

type FunctionTool = { type?: string; function?: { name?: string; description?: string; parameters?: Json; strict?: boolean | null }; cache_control?: unknown };
type ChatToolChoice = "auto" | "required" | "none" | { type?: string; function?: { name?: string } } | undefined;

function toolsOf(tools: unknown): Tool[] {
  if (!Array.isArray(tools)) return [];
  return (tools as FunctionTool[])
    .filter((t) => t.type === "function" && t.function?.name)
    .map((t) => {
      const fn = t.function!;
      return {
        name: fn.name!,
        ...(fn.description && { description: fn.description }),
        input_schema: (fn.parameters as Tool["input_schema"] | undefined) ?? { type: "object", properties: {} },
        ...(fn.strict === true && { strict: true }),
        ...(t.cache_control ? { cache_control: t.cache_control as Tool["cache_control"] } : {}),
      };
    });
}

function toolChoiceOf(choice: ChatToolChoice, parallel: unknown): ToolChoice | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...single };
  if (typeof choice === "object" && choice.function?.name) return { type: "tool", name: choice.function.name, ...single };
  if (choice === "auto" || parallel === false) return { type: "auto", ...single };
  return undefined;
}

type ResponseFormat = { type?: string; json_schema?: { schema?: Json } } | undefined;

/** The Anthropic request for `body` (without `stream`, which the adapter sets). */
export function toMessagesRequest(body: Json, options: Pick<CallOptions, "maxOutputTokens">): MessageCreateParamsBase {
  const { system, messages } = conversationOf((body.messages as Json[] | undefined) ?? []);
  const max_tokens = (body.max_completion_tokens ?? body.max_tokens ?? options.maxOutputTokens) as number;
  const format = body.response_format as ResponseFormat;
  const tools = toolsOf(body.tools);
  let tool_choice = tools.length ? toolChoiceOf(body.tool_choice as ChatToolChoice, body.parallel_tool_calls) : undefined;
  if (format?.type === "json_object") {
    // With tools of its own, the model may still call them; without, it must answer through the JSON tool.
    if (!tools.length) tool_choice = { type: "tool", name: JSON_TOOL };
    tools.push(jsonTool);
  }
  const stop = body.stop;
  const stop_sequences = typeof stop === "string" ? [stop] : Array.isArray(stop) ? (stop as string[]) : undefined;
  const thinking = thinkingOf(body.reasoning_effort, max_tokens);
  return {
    model: String(body.model),
    max_tokens,
    messages,
    ...(system.length && { system }),
    ...(stop_sequences?.length && { stop_sequences }),
    ...(typeof body.temperature === "number" && { temperature: body.temperature }),
    ...(typeof body.top_p === "number" && { top_p: body.top_p }),
    ...(typeof body.top_k === "number" && { top_k: body.top_k }),
    ...(tools.length && { tools }),
    ...(tool_choice && { tool_choice }),
    ...(format?.type === "json_schema" && { output_config: { format: { type: "json_schema", schema: format.json_schema?.schema ?? { type: "object" } } } }),
    ...(thinking && { thinking }),
    ...(typeof body.user === "string" && body.user && { metadata: { user_id: body.user } }),
  };
}
