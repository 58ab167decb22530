// The events of a responses stream, with every field OpenAI's event types have. Shared by the
// streamed create (stream-response.ts), which sends them as the node's chunks arrive, and by the
// replay of a stored response (replay.ts), which makes them from what was stored.
import type { FunctionCallItem, Item, MessageItem } from "./items";
import { toResponseObject, type ResponseState } from "./response-object";

/** An event before it is numbered: its type and its fields. */
export type ResponseEvent = { type: string } & Record<string, unknown>;

/** The SSE data payload of an event (`type` first: the SSE writer names the event after it). */
export function eventPayload(event: ResponseEvent, sequenceNumber: number): string {
  const { type, ...fields } = event;
  return JSON.stringify({ type, sequence_number: sequenceNumber, ...fields });
}

/** Numbers events in the order they are sent. */
export class EventCounter {
  private next = 0;

  payload(event: ResponseEvent): string {
    return eventPayload(event, this.next++);
  }
}

type Lifecycle = "created" | "queued" | "in_progress" | "completed" | "incomplete" | "failed";

/** An event carrying the whole Response as it is at that moment. */
export const lifecycle = (type: `response.${Lifecycle}`, s: ResponseState): ResponseEvent => ({ type, response: toResponseObject(s) });

/** The terminal event of a finished response; none for a cancelled one (OpenAI's streams have no such event). */
export function terminal(s: ResponseState): ResponseEvent | undefined {
  if (s.status === "completed" || s.status === "incomplete" || s.status === "failed") return lifecycle(`response.${s.status}`, s);
  return undefined;
}

/** An item as announced before its content streams: in progress, empty. */
export function itemAdded(outputIndex: number, item: Item): ResponseEvent {
  const opened = item.type === "message" ? { ...item, status: "in_progress", content: [] } : item.type === "function_call" ? { ...item, status: "in_progress", arguments: "" } : item;
  return { type: "response.output_item.added", output_index: outputIndex, item: opened };
}

export const itemDone = (outputIndex: number, item: Item): ResponseEvent => ({ type: "response.output_item.done", output_index: outputIndex, item });

type TextAt = { item_id: string; output_index: number; content_index: number };

export const partAdded = (at: TextAt): ResponseEvent => ({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
export const textDelta = (at: TextAt, delta: string): ResponseEvent => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] });
export const textDone = (at: TextAt, text: string): ResponseEvent => ({ type: "response.output_text.done", ...at, text, logprobs: [] });
export const partDone = (at: TextAt, part: Record<string, unknown>): ResponseEvent => ({ type: "response.content_part.done", ...at, part });

export const argumentsDelta = (outputIndex: number, call: FunctionCallItem, delta: string): ResponseEvent => ({
  type: "response.function_call_arguments.delta",
  item_id: call.id,
  output_index: outputIndex,
  delta,
});

export const argumentsDone = (outputIndex: number, call: FunctionCallItem): ResponseEvent => ({
  type: "response.function_call_arguments.done",
  item_id: call.id,
  output_index: outputIndex,
  name: call.name,
  arguments: call.arguments,
});

/** Every event of a finished output item, its content in one delta per part. */
export function itemEvents(outputIndex: number, item: Item): ResponseEvent[] {
  const events = [itemAdded(outputIndex, item)];
  if (item.type === "message") {
    (item as MessageItem).content.forEach((part, contentIndex) => {
      const at = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
      if (part.type !== "output_text") return;
      const text = String(part.text ?? "");
      events.push(partAdded(at));
      if (text) events.push(textDelta(at, text));
      events.push(textDone(at, text), partDone(at, part));
    });
  } else if (item.type === "function_call") {
    if (item.arguments) events.push(argumentsDelta(outputIndex, item, item.arguments));
    events.push(argumentsDone(outputIndex, item));
  }
  events.push(itemDone(outputIndex, item));
  return events;
}
