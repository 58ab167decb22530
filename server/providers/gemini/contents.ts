// OpenAI chat messages -> Gemini's `systemInstruction` and `contents`: system and developer
// messages become the system instruction (wherever they stand: Gemini has no system turn);
// user and tool messages user turns, assistant messages model turns, consecutive turns of one
// role merged (Gemini wants them alternating).
import type { Json } from "../adapter";
import { contentParts, textOf } from "./content-parts";
import { parseToolCallId } from "./tool-call-ids";
import type { Content, Part } from "./types";

type Message = Json & { role?: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown; name?: unknown };
type ToolCall = { id?: string; function?: { name?: string; arguments?: string }; extra_content?: { google?: { thought_signature?: string } } };

/**
 * Gemini 3 refuses a replayed function call without its thought signature. When a client's
 * history lost it (or it came from another model), Google's documented sentinel stands in for
 * it, on the first call of a model turn (the one a signature belongs to).
 */
const SIGNATURE_SENTINEL = "skip_thought_signature_validator";
const needsSignature = (model: string) => /^(models\/)?gemini-3/.test(model);

export function toContents(messages: Message[], model: string): { systemInstruction?: Content; contents: Content[] } {
  const system: Part[] = [];
  const contents: Content[] = [];
  /** tool_call_id -> the function's name and Gemini's id, from the assistant turns so far. */
  const calls = new Map<string, { name: string; geminiId?: string }>();
  const add = (role: "user" | "model", parts: Part[]) => {
    if (!parts.length) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts!.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOf(message.content);
        if (text) system.push({ text });
        break;
      }
      case "user":
        add("user", contentParts(message.content));
        break;
      case "assistant":
        add("model", [...contentParts(message.content), ...functionCalls(message.tool_calls, model, calls)]);
        break;
      case "tool":
        add("user", [functionResponse(message, calls)]);
        break;
    }
  }
  return { ...(system.length && { systemInstruction: { parts: system } }), contents };
}

function functionCalls(toolCalls: unknown, model: string, calls: Map<string, { name: string; geminiId?: string }>): Part[] {
  if (!Array.isArray(toolCalls)) return [];
  return (toolCalls as ToolCall[]).map((call, i) => {
    const name = call.function?.name ?? "";
    const { geminiId, signature } = parseToolCallId(call.id ?? "");
    if (call.id) calls.set(call.id, { name, geminiId });
    const thoughtSignature = signature ?? call.extra_content?.google?.thought_signature ?? (i === 0 && needsSignature(model) ? SIGNATURE_SENTINEL : undefined);
    return {
      functionCall: { ...(geminiId && { id: geminiId }), name, args: argsOf(call.function?.arguments) },
      ...(thoughtSignature && { thoughtSignature }),
    };
  });
}

/** A tool call's arguments as Gemini's `args` object (a Struct: arguments that are not a JSON object become `{}`). */
function argsOf(text: string | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || "{}");
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function functionResponse(message: Message, calls: Map<string, { name: string; geminiId?: string }>): Part {
  const callId = typeof message.tool_call_id === "string" ? message.tool_call_id : "";
  const call = calls.get(callId);
  // A result for no call of this conversation: its legacy `name`, else the id, names it.
  const name = call?.name ?? (typeof message.name === "string" ? message.name : callId);
  const text = textOf(message.content);
  let response: Record<string, unknown> = { result: text };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) response = parsed;
  } catch {
    // not JSON: the text is the result
  }
  return { functionResponse: { ...(call?.geminiId && { id: call.geminiId }), name, response } };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
