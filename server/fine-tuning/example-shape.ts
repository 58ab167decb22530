// The shape of one example of a chat fine-tuning file, as OpenAI's format has it: a `messages`
// array (roles system, user, assistant, tool, and the legacy function), each message a role and
// content (a string or text parts; an assistant may call tools instead), an assistant's optional
// `weight` (0 or 1), and optional `tools` or legacy `functions`. Checked by hand so that each
// refusal says exactly what is wrong ("message 2 has no role").

export type ToolCall = { id?: string; type: "function"; function: { name: string; arguments: string } };
export type ExampleMessage = {
  role: "system" | "user" | "assistant" | "tool" | "function";
  content: unknown;
  tool_calls?: ToolCall[];
  function_call?: { name: string; arguments: string };
  weight?: 0 | 1;
};
export type Example = { messages: ExampleMessage[] };

const ROLES = new Set(["system", "user", "assistant", "tool", "function"]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";

/** Why a content value is not text (a string or an array of text parts), or null when it is. */
function contentProblem(content: unknown): string | null {
  if (isString(content)) return null;
  if (!Array.isArray(content)) return "content must be a string or an array of text parts";
  for (const [i, part] of content.entries()) {
    if (!isObject(part) || part.type !== "text" || !isString(part.text)) return `content part ${i + 1} is not a text part ({"type": "text", "text": "..."})`;
  }
  return null;
}

const isCall = (v: unknown): v is { name: string; arguments: string } => isObject(v) && isString(v.name) && v.name.length > 0 && isString(v.arguments);

function toolCallsProblem(calls: unknown): string | null {
  if (!Array.isArray(calls) || !calls.length) return "tool_calls must be a non-empty array";
  for (const [i, call] of calls.entries()) {
    if (!isObject(call) || (call.type !== undefined && call.type !== "function") || !isCall(call.function)) {
      return `tool call ${i + 1} must be {"type": "function", "function": {"name": "...", "arguments": "..."}}`;
    }
  }
  return null;
}

/** Why message `n` (1-based) is not a proper message, or null. */
function messageProblem(m: unknown, n: number): string | null {
  if (!isObject(m)) return `message ${n} is not an object`;
  if (m.role === undefined) return `message ${n} has no role`;
  if (!isString(m.role) || !ROLES.has(m.role)) return `message ${n} has an unknown role ${JSON.stringify(m.role)} (system, user, assistant, tool or function)`;
  const assistant = m.role === "assistant";
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!assistant) return `message ${n}: only an assistant message may have tool_calls`;
    const problem = toolCallsProblem(m.tool_calls);
    if (problem) return `message ${n}: ${problem}`;
  }
  if (m.function_call !== undefined && m.function_call !== null) {
    if (!assistant) return `message ${n}: only an assistant message may have a function_call`;
    if (!isCall(m.function_call)) return `message ${n}: function_call must have a name and arguments (a string)`;
  }
  const calls = Boolean(m.tool_calls ?? m.function_call);
  if (m.content === undefined || m.content === null) {
    if (!(assistant && calls)) return `message ${n} has no content`;
  } else {
    const problem = contentProblem(m.content);
    if (problem) return `message ${n}: ${problem}`;
  }
  if (m.weight !== undefined) {
    if (!assistant) return `message ${n}: only an assistant message may have a weight`;
    if (m.weight !== 0 && m.weight !== 1) return `message ${n}: weight must be 0 or 1`;
  }
  return null;
}

const isFunctionDef = (f: unknown) => isObject(f) && isString(f.name) && f.name.length > 0 && (f.parameters === undefined || isObject(f.parameters));

function toolsProblem(example: Json): string | null {
  if (example.tools !== undefined) {
    if (!Array.isArray(example.tools)) return "tools must be an array";
    for (const [i, t] of example.tools.entries()) {
      if (!isObject(t) || t.type !== "function" || !isFunctionDef(t.function)) return `tool ${i + 1} must be {"type": "function", "function": {"name": "...", "parameters": {...}}}`;
    }
  }
  if (example.functions !== undefined) {
    if (!Array.isArray(example.functions)) return "functions must be an array";
    for (const [i, f] of example.functions.entries()) if (!isFunctionDef(f)) return `function ${i + 1} must have a name (and parameters, an object)`;
  }
  return null;
}

/** Checks one parsed line: the example, or why it is not one. */
export function checkExample(value: unknown): { ok: true; example: Example } | { ok: false; reason: string } {
  if (!isObject(value)) return { ok: false, reason: "is not a JSON object" };
  if (value.messages === undefined) return { ok: false, reason: "has no messages" };
  if (!Array.isArray(value.messages) || !value.messages.length) return { ok: false, reason: "messages must be a non-empty array" };
  for (const [i, m] of value.messages.entries()) {
    const problem = messageProblem(m, i + 1);
    if (problem) return { ok: false, reason: problem };
  }
  if (!value.messages.some((m) => (m as Json).role === "assistant")) return { ok: false, reason: "has no assistant message" };
  const problem = toolsProblem(value);
  if (problem) return { ok: false, reason: problem };
  return { ok: true, example: value as Example };
}
