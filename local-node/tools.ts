// When the simulated model calls a tool, which one, and with what arguments.
import { contentText, type ChatRequest, type FunctionToolDef } from "./chat-request";
import { base62, seededRng } from "./random";
import { fillObject } from "./schema-fill";

export type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

const ASKS_FOR_A_TOOL = /\b(call|calls|calling|use|uses|using)\b/i;

/**
 * The tool to call, or undefined for a text answer.
 * - tool_choice "none": never; {type: "function", function: {name}}: always that tool;
 *   "required": always, the tool the prompt names or else the first one.
 * - "auto" (the default): only when the conversation ends with a user message that says
 *   "call"/"use" or names a tool; after a tool result the model answers in text.
 */
export function chooseTool(req: ChatRequest): FunctionToolDef | undefined {
  const tools = req.tools ?? [];
  const choice = req.tool_choice ?? "auto";
  if (!tools.length || choice === "none") return undefined;
  if (typeof choice === "object") return tools.find((t) => t.function.name === choice.function.name);
  const last = req.messages[req.messages.length - 1]!;
  const text = last.role === "user" ? contentText(last.content).toLowerCase() : "";
  const named = tools.find((t) => text.includes(t.function.name.toLowerCase()));
  if (choice === "required") return named ?? tools[0];
  if (named) return named;
  return ASKS_FOR_A_TOOL.test(text) ? tools[0] : undefined;
}

/** A call of `tool` whose arguments fill the parameters' required properties. */
export function makeToolCall(tool: FunctionToolDef, seedKey: string): ToolCall {
  const rng = seededRng(`${seedKey}|tool|${tool.function.name}`);
  const id = `call_${base62(rng, 24)}`;
  const args = fillObject(tool.function.parameters ?? {}, rng);
  return { id, type: "function", function: { name: tool.function.name, arguments: JSON.stringify(args) } };
}
