// A chat completion stream as Anthropic's event stream: message_start and a ping, then for each
// content block (thinking, text, each tool call) content_block_start, its deltas (thinking_delta,
// text_delta, input_json_delta) and content_block_stop, then message_delta with the stop reason
// and the usage, and message_stop. A small state machine over the node's chunk payloads, which
// arrive already billed for by the chat relay (relay-stream.ts).
import type { OpenAIUsage } from "../chat/completion-shape";
import { newMessageId, stopReasonOf, usageOf } from "./from-chat";

type Json = Record<string, unknown>;
type Block = "thinking" | "text" | "tool_use";

const event = (payload: Json) => JSON.stringify(payload);

export async function* messageEvents(chunks: AsyncIterable<string>, modelId: string): AsyncGenerator<string> {
  let index = -1;
  let open: Block | null = null;
  /** The node's tool call index -> the block it streams into. */
  const toolBlocks = new Map<number, number>();
  let finish: unknown = null;
  let usage: OpenAIUsage | undefined;

  yield event({
    type: "message_start",
    message: { id: newMessageId(), type: "message", role: "assistant", model: modelId, content: [], stop_reason: null, stop_sequence: null, usage: usageOf(undefined) },
  });
  yield event({ type: "ping" });

  function* start(kind: Block, block: Json): Generator<string> {
    if (open) yield event({ type: "content_block_stop", index });
    index += 1;
    open = kind;
    yield event({ type: "content_block_start", index, content_block: block });
  }

  for await (const payload of chunks) {
    const chunk = JSON.parse(payload) as Json;
    if (chunk.usage) usage = chunk.usage as OpenAIUsage;
    const choice = ((chunk.choices as Json[] | undefined) ?? [])[0];
    if (!choice) continue;
    if (choice.finish_reason) finish = choice.finish_reason;
    const delta = (choice.delta ?? {}) as Json;
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content) {
      if (open !== "thinking") yield* start("thinking", { type: "thinking", thinking: "", signature: "" });
      yield event({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: delta.reasoning_content } });
    }
    if (typeof delta.content === "string" && delta.content) {
      if (open !== "text") yield* start("text", { type: "text", text: "" });
      yield event({ type: "content_block_delta", index, delta: { type: "text_delta", text: delta.content } });
    }
    for (const call of (delta.tool_calls as Json[] | undefined) ?? []) {
      const at = typeof call.index === "number" ? call.index : 0;
      const fn = (call.function ?? {}) as Json;
      if (!toolBlocks.has(at)) {
        yield* start("tool_use", { type: "tool_use", id: call.id ?? `toolu_${at}`, name: fn.name ?? "", input: {} });
        toolBlocks.set(at, index);
      }
      if (typeof fn.arguments === "string" && fn.arguments) {
        yield event({ type: "content_block_delta", index: toolBlocks.get(at), delta: { type: "input_json_delta", partial_json: fn.arguments } });
      }
    }
  }
  if (open) yield event({ type: "content_block_stop", index });
  yield event({ type: "message_delta", delta: { stop_reason: stopReasonOf(finish), stop_sequence: null }, usage: usageOf(usage) });
  yield event({ type: "message_stop" });
}
