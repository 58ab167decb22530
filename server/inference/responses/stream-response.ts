// A streamed response: the node's chat chunks become the responses API's events, in order
// response.created, response.in_progress, output item / content part events with
// response.output_text.delta (and function-call argument deltas), their .done events, then
// exactly one of response.completed, response.incomplete or response.failed.
import type { ModelRow } from "../../routing/catalog/model-row";
import type { Metering } from "../../ledger/meter";
import { streamOnNode } from "../chat/call-node";
import type { OpenAIUsage } from "../chat/completion-shape";
import { GatewayError } from "../../kernel/errors";
import { EventStream } from "../../kernel/event-stream";
import { itemId, type FunctionCallItem, type Item, type MessageItem } from "./items";
import { toResponseObject, type ResponseState } from "./response-object";
import { insertResponse, settleResponse } from "./store";
import { outcomeOf, responsesUsage } from "./translate";

type Input = { metering: Metering; row: ModelRow; chatRequest: Record<string, unknown>; state: ResponseState; inputItems: Item[] };
type Chunk = { choices?: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason?: string | null }[]; usage?: OpenAIUsage | null };

export async function streamResponse({ metering, row, chatRequest, state, inputItems }: Input): Promise<EventStream> {
  const { ctx } = metering;
  // Stored before the node is called, so nothing opened on the node can be left unreleased.
  if (state.store) await insertResponse(ctx.principal.workspaceId, ctx.principal.keyId, state, inputItems);
  let chunks: AsyncGenerator<string>;
  try {
    chunks = await streamOnNode(metering, row, chatRequest, true);
  } catch (err) {
    // Failures before the node's first byte are plain HTTP errors, as for any request.
    const error = err instanceof GatewayError ? { code: err.code, message: err.message } : { code: "server_error", message: "The node could not be reached." };
    if (state.store) await settleResponse(state.id, { ...state, status: "failed", error, completedAt: new Date() }).catch(() => undefined);
    throw err;
  }

  async function* events(): AsyncGenerator<string> {
    let sequence = 0;
    const event = (type: string, body: Record<string, unknown>) => JSON.stringify({ type, sequence_number: sequence++, ...body });
    yield event("response.created", { response: toResponseObject(state) });
    yield event("response.in_progress", { response: toResponseObject(state) });

    let message: (MessageItem & { text: string; index: number }) | undefined;
    const calls = new Map<number, FunctionCallItem & { index: number }>();
    let usage: OpenAIUsage | undefined;
    let finish: string | null | undefined;
    try {
      for await (const payload of chunks) {
        const chunk = JSON.parse(payload) as Chunk;
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        finish = choice.finish_reason ?? finish;
        const content = choice.delta?.content;
        if (content) {
          if (!message) {
            message = { id: itemId("msg"), type: "message", role: "assistant", status: "completed", content: [], text: "", index: calls.size };
            yield event("response.output_item.added", { output_index: message.index, item: { id: message.id, type: "message", role: "assistant", status: "in_progress", content: [] } });
            yield event("response.content_part.added", { item_id: message.id, output_index: message.index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
          }
          message.text += content;
          yield event("response.output_text.delta", { item_id: message.id, output_index: message.index, content_index: 0, delta: content });
        }
        for (const tc of choice.delta?.tool_calls ?? []) {
          let call = calls.get(tc.index);
          if (!call) {
            call = { id: itemId("fc"), type: "function_call", call_id: tc.id ?? itemId("fc"), name: tc.function?.name ?? "", arguments: "", status: "completed", index: calls.size + (message ? 1 : 0) };
            calls.set(tc.index, call);
            yield event("response.output_item.added", { output_index: call.index, item: { ...item(call), status: "in_progress" } });
          }
          if (tc.function?.arguments) {
            call.arguments += tc.function.arguments;
            yield event("response.function_call_arguments.delta", { item_id: call.id, output_index: call.index, delta: tc.function.arguments });
          }
        }
      }
    } catch (err) {
      state.status = "failed";
      state.error = err instanceof GatewayError ? { code: err.code, message: err.message } : { code: "server_error", message: "The stream failed." };
      state.completedAt = new Date();
      if (state.store) await settleResponse(state.id, state).catch((e) => console.error("could not store a failed response:", e));
      yield event("response.failed", { response: toResponseObject(state) });
      return;
    }
    if (message) {
      const part = { type: "output_text", text: message.text, annotations: [] };
      yield event("response.output_text.done", { item_id: message.id, output_index: message.index, content_index: 0, text: message.text });
      yield event("response.content_part.done", { item_id: message.id, output_index: message.index, content_index: 0, part });
      message.content = [part];
      yield event("response.output_item.done", { output_index: message.index, item: item(message) });
    }
    for (const call of calls.values()) {
      yield event("response.function_call_arguments.done", { item_id: call.id, output_index: call.index, arguments: call.arguments });
      yield event("response.output_item.done", { output_index: call.index, item: item(call) });
    }
    const outcome = outcomeOf(finish);
    const output = [message, ...calls.values()].filter((i): i is NonNullable<typeof i> => !!i).sort((a, b) => a.index - b.index).map(item);
    Object.assign(state, { output, usage: responsesUsage(usage), status: outcome.status, incompleteDetails: outcome.incompleteDetails, completedAt: new Date() });
    // The call is billed and its output produced: a failed write must not take the terminal event away.
    if (state.store) await settleResponse(state.id, state).catch((e) => console.error("could not store a completed response:", e));
    yield event(outcome.status === "completed" ? "response.completed" : "response.incomplete", { response: toResponseObject(state) });
  }
  return new EventStream(events(), { named: true, done: false });
}

/** An item as it goes on the wire (without the stream's bookkeeping). */
function item<T extends Item & { index?: number; text?: string }>(i: T): Item {
  const { index: _index, text: _text, ...rest } = i;
  return rest as unknown as Item;
}
