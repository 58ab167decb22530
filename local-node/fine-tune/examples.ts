// Training files, as the fine-tuning API reads them: OpenAI's chat format (one JSON example per
// line), its rules with the failing line named, the token count every side bills by, and the
// pairs the model trains on (a prompt, then the tokens of an assistant message).
import { countTokens, encode } from "../tokenizer";
import { messageText, promptContext, type PromptContext, type PromptMessage } from "./features";

/** Fewer examples than this and the file is refused, as OpenAI does. */
export const MIN_EXAMPLES = 10;
const ROLES = new Set(["system", "user", "assistant", "tool", "function"]);

/** One assistant message to learn: the messages before it (as features) and its tokens. */
export type TrainingPair = { prompt: PromptContext; completion: number[] };
/** One line of the file: its billed tokens and what the model learns from it. */
export type Example = { line: number; tokens: number; pairs: TrainingPair[] };
export type ReadFile = { examples: Example[]; tokensPerEpoch: number; error: { line: number | null; message: string } | null };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

function contentProblem(content: unknown): string | null {
  if (typeof content === "string") return null;
  if (!Array.isArray(content)) return "has content that is neither a string nor an array of text parts";
  for (const part of content) {
    if (!isObject(part) || part.type !== "text" || typeof part.text !== "string") return "has a content part that is not {type: \"text\", text}";
  }
  return null;
}

function callProblem(call: unknown): boolean {
  const fn = isObject(call) ? call.function : undefined;
  return !isObject(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string";
}

function messageProblem(m: unknown, n: number): string | null {
  if (!isObject(m)) return `message ${n} is not an object`;
  if (m.role === undefined) return `message ${n} has no role`;
  if (typeof m.role !== "string" || !ROLES.has(m.role)) return `message ${n} has an unsupported role '${String(m.role)}'`;
  const calls = m.role === "assistant" && (m.tool_calls !== undefined || m.function_call !== undefined);
  if (m.tool_calls !== undefined && (!Array.isArray(m.tool_calls) || m.tool_calls.some(callProblem))) return `message ${n} has malformed tool_calls`;
  if (m.function_call !== undefined && (!isObject(m.function_call) || typeof m.function_call.name !== "string")) return `message ${n} has a malformed function_call`;
  if (m.content === undefined || m.content === null) return calls ? null : `message ${n} has no content`;
  const problem = contentProblem(m.content);
  if (problem) return `message ${n} ${problem}`;
  if (m.weight !== undefined && m.weight !== 0 && m.weight !== 1) return `message ${n} has weight ${JSON.stringify(m.weight)}; it must be 0 or 1`;
  if (m.weight !== undefined && m.role !== "assistant") return `message ${n} has a weight but only assistant messages may`;
  return null;
}

function toolsProblem(example: Json): string | null {
  if (example.tools !== undefined) {
    const ok = Array.isArray(example.tools) && example.tools.every((t) => isObject(t) && t.type === "function" && isObject(t.function) && typeof t.function.name === "string");
    if (!ok) return "tools must be an array of {type: \"function\", function: {name, ...}}";
  }
  if (example.functions !== undefined) {
    const ok = Array.isArray(example.functions) && example.functions.every((f) => isObject(f) && typeof f.name === "string");
    if (!ok) return "functions must be an array of {name, ...}";
  }
  return null;
}

/** Tokens of one example: each message 3 + its text, plus its tool calls' names and arguments. */
export function exampleTokens(messages: Json[]): number {
  let total = 0;
  for (const m of messages) {
    total += 3 + countTokens(messageText(m.content));
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const fn = (call as Json).function as Json;
      total += countTokens(`${fn.name}${fn.arguments}`);
    }
    if (isObject(m.function_call)) total += countTokens(`${m.function_call.name}${m.function_call.arguments ?? ""}`);
  }
  return total;
}

function pairsOf(messages: Json[]): TrainingPair[] {
  const pairs: TrainingPair[] = [];
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || m.weight === 0) return;
    const text = messageText(m.content);
    if (!text) return; // a tool call alone: counted and billed, not learned
    pairs.push({ prompt: promptContext(messages.slice(0, i) as PromptMessage[]), completion: encode(text) });
  });
  return pairs;
}

/** Reads a whole file; `error` is the first rule it breaks (examples then hold what was read). */
export function readExamples(text: string, contextLength: number, minExamples = MIN_EXAMPLES): ReadFile {
  const examples: Example[] = [];
  let tokensPerEpoch = 0;
  const fail = (line: number | null, message: string): ReadFile => ({ examples, tokensPerEpoch, error: { line, message: line ? `Line ${line}: ${message}` : message } });
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    if (!lines[i]!.trim()) continue;
    let example: unknown;
    try {
      example = JSON.parse(lines[i]!);
    } catch {
      return fail(line, "is not valid JSON");
    }
    if (!isObject(example)) return fail(line, "is not a JSON object");
    if (!Array.isArray(example.messages)) return fail(line, "has no messages array");
    if (!example.messages.length) return fail(line, "has an empty messages array");
    for (let k = 0; k < example.messages.length; k++) {
      const problem = messageProblem(example.messages[k], k + 1);
      if (problem) return fail(line, problem);
    }
    const messages = example.messages as Json[];
    if (!messages.some((m) => m.role === "assistant")) return fail(line, "has no assistant message");
    const tools = toolsProblem(example);
    if (tools) return fail(line, tools);
    const tokens = exampleTokens(messages);
    if (tokens > contextLength) return fail(line, `has ${tokens} tokens, more than the model's context length of ${contextLength}`);
    tokensPerEpoch += tokens;
    examples.push({ line, tokens, pairs: pairsOf(messages) });
  }
  if (examples.length < minExamples) return fail(null, `The file has ${examples.length} example${examples.length === 1 ? "" : "s"}; at least ${minExamples} are required`);
  return { examples, tokensPerEpoch, error: null };
}

export type Hyperparameters = { n_epochs: number; batch_size: number; learning_rate_multiplier: number };

/** "auto" (or absent) values resolved from the number of examples, as the gateway does. */
export function resolveHyperparameters(input: Partial<Record<keyof Hyperparameters, unknown>>, examples: number): Hyperparameters {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const given = (v: unknown) => (typeof v === "number" ? v : undefined);
  return {
    n_epochs: given(input.n_epochs) ?? clamp(Math.ceil(1000 / Math.max(1, examples)), 3, 10),
    batch_size: given(input.batch_size) ?? clamp(Math.ceil(examples / 50), 1, 8),
    learning_rate_multiplier: given(input.learning_rate_multiplier) ?? 1,
  };
}
