// What the simulated chat model answers: every choice's content or tool call, its tokens and its
// finish reason, computed up front. The non-streaming response and the stream both render a plan.
import { tokenLimit, type ChatRequest } from "./chat-request";
import { seededRng, type Rng } from "./random";
import { fillValue } from "./schema-fill";
import { replyText } from "./sim-text";
import { decode, encode } from "./tokenizer";
import { chooseTool, makeToolCall, type ToolCall } from "./tools";
import { chatUsage, promptTokens, type Usage } from "./usage";

export type FinishReason = "stop" | "length" | "tool_calls";

export type PlannedChoice = {
  index: number;
  /** The message content; null for a tool call. */
  content: string | null;
  toolCall?: ToolCall;
  finishReason: FinishReason;
  /** Token ids of the content, or of the tool call's arguments (streamed one by one). */
  ids: number[];
  completionTokens: number;
};

export type ChatPlan = { choices: PlannedChoice[]; usage: Usage };

/** The seed of a request: its messages and `seed`, so equal requests get equal answers. */
export function seedKey(req: ChatRequest): string {
  return `${JSON.stringify(req.messages)}|${req.seed ?? ""}`;
}

function answerText(req: ChatRequest, rng: Rng): string {
  const text = replyText(rng);
  const format = req.response_format;
  if (format?.type === "json_object") return JSON.stringify({ answer: text });
  if (format?.type === "json_schema") {
    // Structured outputs: an instance of the schema, its first plain string property holding the
    // text. Without a schema, any JSON object conforms.
    const schema = format.json_schema.schema;
    if (!schema || !Object.keys(schema).length) return JSON.stringify({ answer: text });
    const value = fillValue(schema, rng, schema, 0, "answer", text);
    return JSON.stringify(value);
  }
  return text;
}

/** Cuts `text` at the first stop sequence and at `limit` tokens, whichever comes first. */
export function truncate(text: string, limit: number, stops: string[]): { text: string; ids: number[]; reason: FinishReason } {
  const ids = encode(text);
  const cut = ids.length > limit ? ids.slice(0, limit) : ids;
  const visible = cut === ids ? text : decode(cut);
  let at = -1;
  for (const stop of stops) {
    const i = stop ? visible.indexOf(stop) : -1;
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at >= 0) {
    const kept = visible.slice(0, at);
    return { text: kept, ids: encode(kept), reason: "stop" };
  }
  return { text: visible, ids: cut, reason: cut === ids ? "stop" : "length" };
}

function planChoice(req: ChatRequest, index: number, key: string): PlannedChoice {
  const limit = tokenLimit(req);
  const tool = chooseTool(req);
  if (tool) {
    const call = makeToolCall(tool, `${key}|${index}`);
    const nameTokens = encode(call.function.name).length;
    const args = truncate(call.function.arguments, Math.max(0, limit - nameTokens), []);
    call.function.arguments = args.text;
    return {
      index,
      content: null,
      toolCall: call,
      finishReason: args.reason === "length" ? "length" : "tool_calls",
      ids: args.ids,
      completionTokens: nameTokens + args.ids.length,
    };
  }
  const stops = req.stop == null ? [] : typeof req.stop === "string" ? [req.stop] : req.stop;
  const out = truncate(answerText(req, seededRng(`${key}|${index}`)), limit, stops);
  return { index, content: out.text, finishReason: out.reason, ids: out.ids, completionTokens: out.ids.length };
}

export function planChat(req: ChatRequest): ChatPlan {
  const key = seedKey(req);
  const choices = Array.from({ length: req.n ?? 1 }, (_, i) => planChoice(req, i, key));
  const completion = choices.reduce((sum, c) => sum + c.completionTokens, 0);
  return { choices, usage: chatUsage(promptTokens(req), completion) };
}
