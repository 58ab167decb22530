// A streamed answer as the request log keeps it: assembled into the object the same call would
// have answered without `stream` (a chat completion, the responses API's response, an Anthropic
// message), event by event as the stream passes, so a long stream never holds its frames. Other
// streams keep their events as a list. Past `maxChars` of text the assembly stops growing and
// says it was cut.
type Json = Record<string, unknown>;

export interface StreamAssembler {
  push(payload: string): void;
  /** The assembled answer, and whether it was cut short. */
  result(): { answer: unknown; cut: boolean };
}

const parse = (payload: string): Json | null => {
  try {
    const v: unknown = JSON.parse(payload);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
};

/** Text appended up to a budget shared by the whole answer. */
class Budget {
  cut = false;
  constructor(private left: number) {}
  take(text: string): string {
    if (this.left <= 0) return ((this.cut ||= text.length > 0), "");
    if (text.length > this.left) this.cut = true;
    const kept = text.slice(0, this.left);
    this.left -= kept.length;
    return kept;
  }
}

type ToolCall = { id?: string; type: string; function: { name: string; arguments: string } };
type Choice = { index: number; message: Json & { role: string; content: string | null }; finish_reason: unknown; tools: ToolCall[] };

/** Chat completion chunks into a chat.completion. */
class ChatAssembler implements StreamAssembler {
  private head: Json | null = null;
  private usage: unknown = null;
  private readonly choices = new Map<number, Choice>();
  constructor(private readonly budget: Budget) {}

  push(payload: string): void {
    const chunk = parse(payload);
    if (!chunk) return;
    this.head ??= chunk;
    if (chunk.usage) this.usage = chunk.usage;
    for (const c of (chunk.choices as Json[] | undefined) ?? []) this.choice(c);
  }

  private choice(c: Json): void {
    const index = Number(c.index ?? 0);
    let choice = this.choices.get(index);
    if (!choice) this.choices.set(index, (choice = { index, message: { role: "assistant", content: null }, finish_reason: null, tools: [] }));
    const delta = (c.delta as Json | undefined) ?? {};
    if (typeof delta.content === "string") choice.message.content = (choice.message.content ?? "") + this.budget.take(delta.content);
    for (const field of ["reasoning_content", "refusal"]) {
      if (typeof delta[field] === "string") choice.message[field] = String(choice.message[field] ?? "") + this.budget.take(delta[field]);
    }
    for (const t of (delta.tool_calls as Json[] | undefined) ?? []) {
      const at = Number(t.index ?? 0);
      const fn = (t.function as Json | undefined) ?? {};
      const call = (choice.tools[at] ??= { type: "function", function: { name: "", arguments: "" } });
      if (typeof t.id === "string") call.id = t.id;
      if (typeof fn.name === "string") call.function.name += fn.name;
      if (typeof fn.arguments === "string") call.function.arguments += this.budget.take(fn.arguments);
    }
    if (c.finish_reason) choice.finish_reason = c.finish_reason;
  }

  result() {
    const choices = [...this.choices.values()].map(({ tools, ...c }) => ({ ...c, message: tools.length ? { ...c.message, tool_calls: tools.filter(Boolean) } : c.message }));
    const h = this.head ?? {};
    const answer = { id: h.id, object: "chat.completion", created: h.created, model: h.model, choices, ...(this.usage ? { usage: this.usage } : {}) };
    return { answer, cut: this.budget.cut };
  }
}

/** The responses API's events: its terminal event carries the whole response. */
class ResponsesAssembler implements StreamAssembler {
  private response: unknown = null;
  private text = "";
  constructor(private readonly budget: Budget) {}

  push(payload: string): void {
    const event = parse(payload);
    if (!event) return;
    if (event.response && /^response\.(completed|incomplete|failed|created)$/.test(String(event.type))) this.response = event.response;
    else if (event.type === "response.output_text.delta" && typeof event.delta === "string") this.text += this.budget.take(event.delta);
  }

  result() {
    const done = this.response as Json | null;
    // Without its terminal event (a stream cut short) the text so far is what there is.
    if (done && done.status !== "in_progress") return { answer: done, cut: false };
    return { answer: { ...(done ?? {}), object: "response", output_text: this.text }, cut: true };
  }
}

/** Anthropic's message events into a message. */
class MessageAssembler implements StreamAssembler {
  private message: Json = { type: "message", content: [] };
  private readonly partial = new Map<number, string>();
  constructor(private readonly budget: Budget) {}

  push(payload: string): void {
    const e = parse(payload);
    if (!e) return;
    const content = this.message.content as Json[];
    switch (e.type) {
      case "message_start":
        this.message = { ...(e.message as Json), content: [] };
        break;
      case "content_block_start":
        content[Number(e.index)] = { ...(e.content_block as Json) };
        break;
      case "content_block_delta": {
        const block = content[Number(e.index)];
        const d = e.delta as Json;
        if (!block || !d) break;
        if (d.type === "text_delta") block.text = String(block.text ?? "") + this.budget.take(String(d.text ?? ""));
        else if (d.type === "thinking_delta") block.thinking = String(block.thinking ?? "") + this.budget.take(String(d.thinking ?? ""));
        else if (d.type === "signature_delta") block.signature = String(d.signature ?? "");
        else if (d.type === "input_json_delta") this.partial.set(Number(e.index), (this.partial.get(Number(e.index)) ?? "") + this.budget.take(String(d.partial_json ?? "")));
        break;
      }
      case "content_block_stop": {
        const json = this.partial.get(Number(e.index));
        const block = content[Number(e.index)];
        if (json !== undefined && block) block.input = parse(json) ?? json;
        break;
      }
      case "message_delta":
        Object.assign(this.message, e.delta as Json);
        if (e.usage) this.message.usage = { ...(this.message.usage as Json | undefined), ...(e.usage as Json) };
        break;
    }
  }

  result() {
    return { answer: this.message, cut: this.budget.cut };
  }
}

/** Any other stream: its events, as they came, up to the budget. */
class EventList implements StreamAssembler {
  private readonly events: unknown[] = [];
  constructor(private readonly budget: Budget) {}
  push(payload: string): void {
    const kept = this.budget.take(payload);
    if (kept.length === payload.length) this.events.push(parse(payload) ?? payload);
  }
  result() {
    return { answer: { object: "list", data: this.events }, cut: this.budget.cut };
  }
}

export function streamAssembler(route: string, maxChars: number): StreamAssembler {
  const budget = new Budget(maxChars);
  if (route === "/v1/chat/completions") return new ChatAssembler(budget);
  if (route === "/v1/responses") return new ResponsesAssembler(budget);
  if (route === "/v1/messages") return new MessageAssembler(budget);
  return new EventList(budget);
}
