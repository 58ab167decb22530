// ConverseStream's events (one per SSE event, event-stream.ts: `{"<eventType>": {...}}`) as
// OpenAI chat.completion.chunk payloads: a small state machine over messageStart,
// contentBlockStart (a tool use's id and name) / contentBlockDelta (text, a tool's input in JSON
// pieces, reasoning text and its signature) / contentBlockStop, messageStop (the stop reason)
// and metadata (the usage: the last chunk, and the end). An exception frame
// (throttlingException, modelStreamErrorException...) becomes an error payload, which fails the
// relayed stream with Bedrock's words.
import type { Json, StreamTranslator } from "../adapter";
import { JSON_TOOL } from "../anthropic/json-mode";
import { nowSeconds } from "../anthropic/response";
import { streamFailureMessage } from "./failures";
import { completionId } from "./converse-response";
import type { ConverseStreamEvent } from "./types";
import { finishReasonOf, usageOf } from "./usage";

type Open = { kind: "text" } | { kind: "reasoning"; text: string; signature: string; redacted: string } | { kind: "tool"; index: number } | { kind: "json" };

const EVENTS = new Set(["messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"]);

export class ConverseStreamTranslator implements StreamTranslator {
  done = false;
  private readonly id = completionId();
  private readonly created = nowSeconds();
  private readonly blocks = new Map<number, Open>();
  private tools = 0;
  private jsonAnswer = false;

  /** `model` is the node's name for it (the request's): the relay renames it in every chunk. */
  constructor(private readonly model: string) {}

  private chunk(delta: Json, finish: string | null = null): string {
    return JSON.stringify({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  }

  push(data: string): string[] {
    const event = JSON.parse(data) as ConverseStreamEvent;
    const type = Object.keys(event)[0] ?? "";
    if (!EVENTS.has(type)) {
      // Anything else Bedrock sends on a stream is an exception (event-stream.ts ends the body after it).
      const message = String((event[type] as { message?: unknown } | undefined)?.message ?? "");
      return [JSON.stringify({ error: { message: streamFailureMessage(type, message) } })];
    }
    if (event.messageStart) return [this.chunk({ role: "assistant", content: "" })];
    if (event.contentBlockStart) return this.start(event.contentBlockStart);
    if (event.contentBlockDelta) return this.delta(event.contentBlockDelta);
    if (event.contentBlockStop) return this.stop(event.contentBlockStop.contentBlockIndex);
    if (event.messageStop) {
      const finish = finishReasonOf(event.messageStop.stopReason);
      // JSON mode's answer ends with the JSON tool's call: to the client it is a plain answer.
      return [this.chunk({}, finish === "tool_calls" && this.jsonAnswer && !this.tools ? "stop" : finish)];
    }
    this.done = true;
    return [JSON.stringify({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage: usageOf(event.metadata?.usage) })];
  }

  end(): string[] {
    return [];
  }

  private start({ contentBlockIndex: index, start }: NonNullable<ConverseStreamEvent["contentBlockStart"]>): string[] {
    const use = start?.toolUse;
    if (!use) return [];
    if (use.name === JSON_TOOL) {
      this.blocks.set(index, { kind: "json" });
      this.jsonAnswer = true;
      return [];
    }
    const at = this.tools++;
    this.blocks.set(index, { kind: "tool", index: at });
    return [this.chunk({ tool_calls: [{ index: at, id: use.toolUseId, type: "function", function: { name: use.name, arguments: "" } }] })];
  }

  private delta({ contentBlockIndex: index, delta }: NonNullable<ConverseStreamEvent["contentBlockDelta"]>): string[] {
    const open = this.blocks.get(index);
    if (typeof delta?.text === "string") {
      if (!open) this.blocks.set(index, { kind: "text" });
      return delta.text ? [this.chunk({ content: delta.text })] : [];
    }
    const input = delta?.toolUse?.input;
    if (typeof input === "string") {
      if (!input) return [];
      if (open?.kind === "json") return [this.chunk({ content: input })];
      return open?.kind === "tool" ? [this.chunk({ tool_calls: [{ index: open.index, function: { arguments: input } }] })] : [];
    }
    const reasoning = delta?.reasoningContent;
    if (!reasoning) return [];
    let block = open;
    if (block?.kind !== "reasoning") this.blocks.set(index, (block = { kind: "reasoning", text: "", signature: "", redacted: "" }));
    block.text += reasoning.text ?? "";
    block.signature += reasoning.signature ?? "";
    block.redacted += reasoning.redactedContent ?? "";
    return reasoning.text ? [this.chunk({ reasoning_content: reasoning.text })] : [];
  }

  /** A finished reasoning block is sent whole in `thinking_blocks`, with its signature (which only arrives at its end), as the Anthropic stream does. */
  private stop(index: number): string[] {
    const open = this.blocks.get(index);
    this.blocks.delete(index);
    if (open?.kind !== "reasoning") return [];
    if (open.redacted) return [this.chunk({ thinking_blocks: [{ type: "redacted_thinking", data: open.redacted }] })];
    return [this.chunk({ thinking_blocks: [{ type: "thinking", thinking: open.text, signature: open.signature }] })];
  }
}
