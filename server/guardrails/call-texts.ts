// Where the text of a call is, per kind of operation: the input's texts a guardrail checks (and
// redaction rewrites in place, before the call goes anywhere), the answer's, and the text a stream's
// event adds. Images, audio, files and tool definitions are not text here.
type Json = Record<string, unknown>;

/** The operations' kinds of text (declared by each guarded operation, contract/operation.ts). */
export type GuardedText = "chat" | "responses" | "messages" | "embeddings" | "items";

/** One text in a request or answer: read it, and write it back redacted. */
export type TextSlot = { text: string; set: (text: string) => void };

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function field(slots: TextSlot[], owner: Json, key: string): void {
  const v = owner[key];
  if (typeof v === "string") slots.push({ text: v, set: (t) => (owner[key] = t) });
}

const TEXT_PARTS = new Set(["text", "input_text", "output_text"]);

/** A content value: a string, or a list of parts whose text parts count (tool results' content too). */
function content(slots: TextSlot[], owner: Json, key: string): void {
  const v = owner[key];
  if (typeof v === "string") return field(slots, owner, key);
  if (!Array.isArray(v)) return;
  for (const part of v) {
    if (!isObject(part)) continue;
    if (TEXT_PARTS.has(String(part.type))) field(slots, part, "text");
    else if (part.type === "tool_result") content(slots, part, "content");
  }
}

function items(slots: TextSlot[], list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const item of list) {
    if (!isObject(item)) continue;
    content(slots, item, "content");
    if (item.type === "function_call_output") field(slots, item, "output");
  }
}

/** The texts of an operation's input, in order. */
export function inputTexts(kind: GuardedText, input: Json): TextSlot[] {
  const slots: TextSlot[] = [];
  switch (kind) {
    case "chat":
      for (const m of Array.isArray(input.messages) ? input.messages : []) if (isObject(m)) content(slots, m, "content");
      break;
    case "responses":
      field(slots, input, "instructions");
      if (typeof input.input === "string") field(slots, input, "input");
      else items(slots, input.input);
      break;
    case "messages":
      content(slots, input, "system");
      for (const m of Array.isArray(input.messages) ? input.messages : []) if (isObject(m)) content(slots, m, "content");
      break;
    case "embeddings":
      if (typeof input.input === "string") field(slots, input, "input");
      else if (Array.isArray(input.input)) {
        const list = input.input as unknown[];
        list.forEach((v, i) => {
          if (typeof v === "string") slots.push({ text: v, set: (t) => (list[i] = t) });
        });
      }
      break;
    case "items":
      items(slots, input.items);
      break;
  }
  return slots;
}

/** The texts of an answer (JSON), in order: a chat completion's messages, a response's output text, a message's text blocks. */
export function answerTexts(answer: unknown): TextSlot[] {
  const slots: TextSlot[] = [];
  if (!isObject(answer)) return slots;
  if (Array.isArray(answer.choices)) {
    for (const c of answer.choices) if (isObject(c) && isObject(c.message)) content(slots, c.message, "content");
  } else if (answer.object === "response" && Array.isArray(answer.output)) {
    for (const item of answer.output) if (isObject(item) && item.type === "message") content(slots, item, "content");
  } else if (answer.type === "message" && Array.isArray(answer.content)) {
    content(slots, answer, "content");
  }
  return slots;
}

/** The text a stream's event adds (a chat chunk's content, a response's or a message's text delta); "" for the others. */
export function deltaText(payload: string): string {
  if (!payload.includes("content") && !payload.includes("delta")) return "";
  let event: unknown;
  try {
    event = JSON.parse(payload);
  } catch {
    return "";
  }
  if (!isObject(event)) return "";
  if (Array.isArray(event.choices)) {
    let text = "";
    for (const c of event.choices) if (isObject(c) && isObject(c.delta) && typeof c.delta.content === "string") text += c.delta.content;
    return text;
  }
  if (event.type === "response.output_text.delta" && typeof event.delta === "string") return event.delta;
  if (event.type === "content_block_delta" && isObject(event.delta) && event.delta.type === "text_delta" && typeof event.delta.text === "string") return event.delta.text;
  return "";
}

/** The event with the text it adds replaced (the inverse of deltaText; the event is returned as it is when it adds none). */
export function withDeltaText(payload: string, text: string): string {
  const event = JSON.parse(payload) as Json;
  if (Array.isArray(event.choices)) {
    let first = true;
    for (const c of event.choices) {
      if (!isObject(c) || !isObject(c.delta) || typeof c.delta.content !== "string") continue;
      c.delta.content = first ? text : "";
      first = false;
    }
  } else if (event.type === "response.output_text.delta") event.delta = text;
  else if (event.type === "content_block_delta" && isObject(event.delta)) event.delta.text = text;
  return JSON.stringify(event);
}
