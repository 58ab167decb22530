// An OpenAI chat completion request as a Converse request. Converse has no JSON mode or schema of
// its own for every model: `response_format` becomes one tool whose input schema is the wanted
// JSON, which the model is made to call (json-mode.ts's approach, its name shared); its input
// comes back as the answer's content. Reasoning is each model family's own field
// (additionalModelRequestFields). What has no place (n, logprobs, penalties, seed, logit_bias,
// top_k, parallel_tool_calls, user...) is not sent.
import type { Json } from "../adapter";
import { JSON_TOOL } from "../anthropic/json-mode";
import { thinkingOf } from "../anthropic/thinking";
import { conversationOf } from "./converse-messages";
import { foundationModelId } from "./model-ids";
import type { ConverseRequest, ConverseTool, ConverseToolChoice } from "./types";

type FunctionTool = { type?: string; function?: { name?: string; description?: string; parameters?: Json } };
type ResponseFormat = { type?: string; json_schema?: { schema?: Json; description?: string } } | undefined;
type ChatToolChoice = "auto" | "required" | "none" | { type?: string; function?: { name?: string } } | undefined;

function toolsOf(tools: unknown): ConverseTool[] {
  if (!Array.isArray(tools)) return [];
  return (tools as FunctionTool[])
    .filter((t) => t.type === "function" && t.function?.name)
    .map(({ function: fn }) => ({
      toolSpec: { name: fn!.name!, ...(fn!.description && { description: fn!.description }), inputSchema: { json: fn!.parameters ?? { type: "object", properties: {} } } },
    }));
}

function toolChoiceOf(choice: ChatToolChoice): ConverseToolChoice | undefined {
  if (choice === "required") return { any: {} };
  if (choice && typeof choice === "object" && choice.function?.name) return { tool: { name: choice.function.name } };
  if (choice === "auto") return { auto: {} };
  return undefined;
}

function jsonTool(format: ResponseFormat): ConverseTool | undefined {
  if (format?.type === "json_object") return { toolSpec: { name: JSON_TOOL, description: "Give your answer as a JSON object: the input of this tool is the answer.", inputSchema: { json: { type: "object" } } } };
  if (format?.type !== "json_schema") return undefined;
  const description = format.json_schema?.description ?? "Give your answer as the input of this tool.";
  return { toolSpec: { name: JSON_TOOL, description, inputSchema: { json: format.json_schema?.schema ?? { type: "object" } } } };
}

/** OpenAI's reasoning_effort in the field the model's family reads; none for a family that has none. */
function reasoningFields(model: string, effort: unknown, maxTokens: number | undefined): Json | undefined {
  if (typeof effort !== "string") return undefined;
  const family = foundationModelId(model);
  if (family.startsWith("anthropic.")) {
    const thinking = thinkingOf(effort, maxTokens ?? Number.MAX_SAFE_INTEGER);
    return thinking && { thinking };
  }
  if (family.startsWith("amazon.nova")) return effort === "none" ? undefined : { reasoningConfig: { type: "enabled", maxReasoningEffort: effort === "minimal" ? "low" : effort === "xhigh" ? "high" : effort } };
  if (family.startsWith("openai.")) return { reasoning_effort: effort };
  return undefined;
}

export function toConverseRequest(body: Json): ConverseRequest {
  const conversation = conversationOf((body.messages as Json[] | undefined) ?? []);
  const maxTokens = (body.max_completion_tokens ?? body.max_tokens) as number | undefined;
  const stop = body.stop;
  const stopSequences = typeof stop === "string" ? [stop] : Array.isArray(stop) ? (stop as string[]) : undefined;
  const inferenceConfig = {
    ...(typeof maxTokens === "number" && { maxTokens }),
    ...(typeof body.temperature === "number" && { temperature: body.temperature }),
    ...(typeof body.top_p === "number" && { topP: body.top_p }),
    ...(stopSequences?.length && { stopSequences }),
  };
  const history = conversation.messages.some((m) => m.content.some((b) => "toolUse" in b || "toolResult" in b));
  // tool_choice "none" has no Converse form: the tools are left out, unless the history holds tool blocks (Converse then needs them).
  let tools = body.tool_choice === "none" && !history ? [] : toolsOf(body.tools);
  let toolChoice = tools.length ? toolChoiceOf(body.tool_choice as ChatToolChoice) : undefined;
  const json = jsonTool(body.response_format as ResponseFormat);
  if (json) {
    // With tools of its own, the model may still call them; without, it must answer through the JSON tool.
    if (!tools.length) toolChoice = { tool: { name: JSON_TOOL } };
    tools = [...tools, json];
  }
  const additional = reasoningFields(String(body.model), body.reasoning_effort, maxTokens);
  return {
    ...conversation,
    ...(Object.keys(inferenceConfig).length && { inferenceConfig }),
    ...(tools.length && { toolConfig: { tools, ...(toolChoice && { toolChoice }) } }),
    ...(additional && { additionalModelRequestFields: additional }),
  };
}
