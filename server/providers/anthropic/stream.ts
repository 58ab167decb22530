// Anthropic's stream events as OpenAI chat.completion.chunk payloads: a small state machine over
// message_start, content_block_start / _delta / _stop (text, thinking with its signature,
// tool_use with its input in input_json_delta pieces), message_delta (stop reason, final usage)
// and message_stop (the usage chunk, and the end). `ping` says nothing; an `error` event becomes
// an error payload, which fails the relayed stream. Anthropic ends its body right after an error
// event, and the payload is handed over then (from `end`), as for an unreadable event: the relay
// stops reading at an error payload, and a body given up before its end is aborted rather than
// drained.
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { ErrorResponse } from "@anthropic-ai/sdk/resources/shared";
import type { Json, StreamTranslator } from "../adapter";
import { JSON_TOOL } from "./json-mode";
import { completionId, nowSeconds } from "./response";
import { chatUsage, finishReasonOf, mergeUsage, type UsageCounts } from "./usage";

/** What a content block that is open streams into. */
type Open =
  | { kind: "text" }
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; index: number }
  | { kind: "json" }
  | { kind: "other" };

type Event = RawMessageStreamEvent | ErrorResponse | { type: "ping" };

const failure = (message: string) => [JSON.stringify({ error: { message } })];

export class AnthropicStreamTranslator implements StreamTranslator {
  done = false;
  private id = completionId("msg");
  private readonly created = nowSeconds();
  private usage: UsageCounts = {};
  private readonly blocks = new Map<number, Open>();
  private tools = 0;
  private jsonAnswer = false;
  /** The node's error event, owed once its body ends. */
  private failed: string[] | undefined;

  /** `model` is the node's name for it (the request's): the relay renames it in every chunk. */
  constructor(private readonly model: string) {}

  private chunk(delta: Json, finish: string | null = null): string {
    return JSON.stringify({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  }

  push(data: string): string[] {
    if (this.failed) return [];
    let event: Event;
    try {
      event = JSON.parse(data) as Event;
    } catch {
      this.failed = failure("The node sent an unreadable stream event.");
      return [];
    }
    switch (event.type) {
      case "message_start":
        this.id = completionId(event.message.id);
        this.usage = mergeUsage({}, event.message.usage);
        return [this.chunk({ role: "assistant", content: "" })];
      case "content_block_start":
        return this.start(event.index, event.content_block as unknown as Json);
      case "content_block_delta":
        return this.delta(event.index, event.delta as unknown as Json);
      case "content_block_stop":
        return this.stop(event.index);
      case "message_delta": {
        this.usage = mergeUsage(this.usage, event.usage);
        if (!event.delta.stop_reason) return [];
        const finish = finishReasonOf(event.delta.stop_reason);
        // JSON mode's answer ends with the JSON tool's call: to the client it is a plain answer.
        return [this.chunk({}, finish === "tool_calls" && this.jsonAnswer && !this.tools ? "stop" : finish)];
      }
      case "message_stop":
        this.done = true;
        return [JSON.stringify({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage: chatUsage(this.usage) })];
      case "error":
        this.failed = failure(event.error?.message ?? "The node failed while streaming.");
        return [];
      default:
        // ping, and event types newer than this translator
        return [];
    }
  }

  end(): string[] {
    return this.failed ?? [];
  }

  private start(index: number, block: Json): string[] {
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "text" });
        return typeof block.text === "string" && block.text ? [this.chunk({ content: block.text })] : [];
      case "thinking":
        this.blocks.set(index, { kind: "thinking", thinking: String(block.thinking ?? ""), signature: String(block.signature ?? "") });
        return block.thinking ? [this.chunk({ reasoning_content: block.thinking })] : [];
      case "redacted_thinking":
        this.blocks.set(index, { kind: "redacted", data: String(block.data ?? "") });
        return [];
      case "tool_use": {
        if (block.name === JSON_TOOL) {
          this.blocks.set(index, { kind: "json" });
          this.jsonAnswer = true;
          return [];
        }
        const at = this.tools++;
        this.blocks.set(index, { kind: "tool", index: at });
        return [this.chunk({ tool_calls: [{ index: at, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] })];
      }
      default:
        this.blocks.set(index, { kind: "other" });
        return [];
    }
  }

  private delta(index: number, delta: Json): string[] {
    const open = this.blocks.get(index);
    switch (delta.type) {
      case "text_delta":
        return delta.text ? [this.chunk({ content: delta.text })] : [];
      case "thinking_delta":
        if (open?.kind === "thinking") open.thinking += String(delta.thinking ?? "");
        return delta.thinking ? [this.chunk({ reasoning_content: delta.thinking })] : [];
      case "signature_delta":
        if (open?.kind === "thinking") open.signature += String(delta.signature ?? "");
        return [];
      case "input_json_delta": {
        const piece = String(delta.partial_json ?? "");
        if (!piece) return [];
        if (open?.kind === "json") return [this.chunk({ content: piece })];
        if (open?.kind === "tool") return [this.chunk({ tool_calls: [{ index: open.index, function: { arguments: piece } }] })];
        return [];
      }
      default:
        // citations_delta and newer kinds: nothing OpenAI's chunk has a place for
        return [];
    }
  }

  /**
   * A finished thinking block is sent whole in `thinking_blocks` (its text again, with the
   * signature, which only arrives at its end): a client that keeps the blocks of every chunk holds
   * what it must send back on its next turn, as a non-streamed answer's `thinking_blocks` gives.
   */
  private stop(index: number): string[] {
    const open = this.blocks.get(index);
    this.blocks.delete(index);
    if (open?.kind === "thinking") return [this.chunk({ thinking_blocks: [{ type: "thinking", thinking: open.thinking, signature: open.signature }] })];
    if (open?.kind === "redacted") return [this.chunk({ thinking_blocks: [{ type: "redacted_thinking", data: open.data }] })];
    return [];
  }
}
