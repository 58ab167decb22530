// When the simulated model calls a tool, which one, and with what arguments.
import { contentText, type ChatRequest, type FunctionToolDef } from "./chat-request";
import { base62, seededRng } from "./random";
import { fillObject } from "./schema-fill";

export type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

const ASKS_FOR_A_TOOL = /\b(call|calls|calling|use|uses|using)\b/i;

/** What a client adds to a user turn for the model alone (Claude Code's reminders), not the user's words. */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * The user's request, lowercased: the last turn but for system and developer messages (which
 * clients such as Claude Code send after it), without reminders; "" when that turn is not the
 * user's (after a tool result the model answers in text).
 */
function requestText(req: ChatRequest): string {
  const last = req.messages.findLast((m) => m.role !== "system" && m.role !== "developer");
  return last?.role === "user" ? contentText(last.content).replace(REMINDER, " ").toLowerCase() : "";
}

/**
 * The tool to call, or undefined for a text answer.
 * - tool_choice "none": never; {type: "function", function: {name}}: always that tool;
 *   "required": always, the tool the prompt names or else the first one.
 * - "auto" (the default): only when the user's last turn (system messages after it aside) says
 *   "call"/"use" or names a tool; after a tool result the model answers in text.
 */
export function chooseTool(req: ChatRequest): FunctionToolDef | undefined {
  const tools = req.tools ?? [];
  const choice = req.tool_choice ?? "auto";
  if (!tools.length || choice === "none") return undefined;
  if (typeof choice === "object") return tools.find((t) => t.function.name === choice.function.name);
  const text = requestText(req);
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
