// A streamed response: the node's chat chunks become the responses API's events, in order
// response.created, response.in_progress, output item / content part events with
// response.output_text.delta (and function-call argument deltas), their .done events, then
// exactly one of response.completed, response.incomplete or response.failed.
//
// A stored response is inserted before the node is called and settled once the node finished,
// before the call is charged: when that write fails the stream ends with response.failed and
// the call costs nothing, so a response is never billed without being stored (nor stored as
// finished without being billed).
import type { ModelRow } from "../../routing/catalog/model-row";
import type { Metering } from "../../ledger/meter";
import { streamOnNode } from "../chat/call-node";
import type { OpenAIUsage } from "../chat/completion-shape";
import { GatewayError } from "../../kernel/errors";
import { EventStream } from "../../kernel/event-stream";
import { argumentsDelta, argumentsDone, EventCounter, itemAdded, itemDone, lifecycle, partAdded, partDone, textDelta, textDone, type ResponseEvent } from "./events";
import { itemId, outputText, type FunctionCallItem, type Item, type MessageItem } from "./items";
import type { ConversationTurn } from "./conversation-turn";
import type { ResponseState } from "./response-object";
import { insertResponse, settleResponse } from "./store";
import { outcomeOf, responsesUsage } from "./translate";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("responses");

type Input = { metering: Metering; row: ModelRow; chatRequest: Record<string, unknown>; state: ResponseState; inputItems: Item[]; turn: ConversationTurn | null };
type Chunk = { choices?: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason?: string | null }[]; usage?: OpenAIUsage | null };

/** What the node streamed so far: the message text and the tool calls, in output order. */
class Turn {
  message: (MessageItem & { text: string; index: number }) | undefined;
  readonly calls = new Map<number, FunctionCallItem & { index: number }>();
  usage: OpenAIUsage | undefined;
  finish: string | null | undefined;

  /** The finished output items, in output order; their status follows the turn's outcome. */
  output(status: "completed" | "incomplete"): Item[] {
    const items = [this.message, ...this.calls.values()].filter((i): i is NonNullable<typeof i> => !!i).sort((a, b) => a.index - b.index);
    return items.map((i) => ({ ...wire(i), status }) as Item);
  }
}

export async function streamResponse({ metering, row, chatRequest, state, inputItems, turn: conversationTurn }: Input): Promise<EventStream> {
  const { ctx } = metering;
  // Stored before the node is called, so nothing opened on the node can be left unreleased.
  if (state.store) await insertResponse(ctx.principal.workspaceId, ctx.principal.keyId, state, inputItems);
  const turn = new Turn();
  /**
   * Runs when the node finished, before the charge: the outcome is stored (and appended to the
   * conversation, first, so that a failed append leaves the response open to be failed), or the call fails uncharged.
   */
  const settle = async () => {
    const outcome = outcomeOf(turn.finish);
    const output = turn.output(outcome.status);
    await conversationTurn?.append(output);
    Object.assign(state, { output, usage: responsesUsage(turn.usage), status: outcome.status, incompleteDetails: outcome.incompleteDetails, completedAt: new Date() });
    if (state.store) await settleResponse(state.id, state);
  };
  let chunks: AsyncGenerator<string>;
  try {
    chunks = await streamOnNode(metering, row, chatRequest, true, settle);
  } catch (err) {
    // Failures before the node's first byte are plain HTTP errors, as for any request.
    const error = err instanceof GatewayError ? { code: err.code, message: err.message } : { code: "server_error", message: "The node could not be reached." };
    if (state.store) await settleResponse(state.id, { ...state, status: "failed", error, completedAt: new Date() }).catch(() => undefined);
    throw err;
  }
  return new EventStream(events(chunks, turn, state, conversationTurn), { named: true, done: false });
}

async function* events(chunks: AsyncGenerator<string>, turn: Turn, state: ResponseState, conversationTurn: ConversationTurn | null): AsyncGenerator<string> {
  const counter = new EventCounter();
  const send = (e: ResponseEvent) => counter.payload(e);
  yield send(lifecycle("response.created", state));
  yield send(lifecycle("response.in_progress", state));
  const textAt = (m: NonNullable<Turn["message"]>) => ({ item_id: m.id, output_index: m.index, content_index: 0 });
  try {
    for await (const payload of chunks) {
      const chunk = JSON.parse(payload) as Chunk;
      if (chunk.usage) turn.usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      turn.finish = choice.finish_reason ?? turn.finish;
      const content = choice.delta?.content;
      if (content) {
        if (!turn.message) {
          turn.message = { id: itemId("msg"), type: "message", role: "assistant", status: "completed", content: [], text: "", index: turn.calls.size };
          yield send(itemAdded(turn.message.index, wire(turn.message)));
          yield send(partAdded(textAt(turn.message)));
        }
        turn.message.text += content;
        yield send(textDelta(textAt(turn.message), content));
      }
      for (const tc of choice.delta?.tool_calls ?? []) {
        let call = turn.calls.get(tc.index);
        if (!call) {
          call = { id: itemId("fc"), type: "function_call", call_id: tc.id ?? itemId("fc"), name: tc.function?.name ?? "", arguments: "", status: "completed", index: turn.calls.size + (turn.message ? 1 : 0) };
          turn.calls.set(tc.index, call);
          yield send(itemAdded(call.index, wire(call)));
        }
        if (tc.function?.arguments) {
          call.arguments += tc.function.arguments;
          yield send(argumentsDelta(call.index, call, tc.function.arguments));
        }
      }
    }
  } catch (err) {
    // The node failed, or the outcome could not be stored: the call was not charged, and its turn
    // is not part of the conversation.
    await conversationTurn?.undo();
    state.status = "failed";
    state.error = err instanceof GatewayError ? { code: err.code, message: err.message } : { code: "server_error", message: "The stream failed." };
    state.completedAt = new Date();
    if (!(err instanceof GatewayError)) log.error({ err }, "streamed response failed");
    if (state.store) await settleResponse(state.id, state).catch((e) => log.error({ err: e }, "could not store a failed response"));
    yield send(lifecycle("response.failed", state));
    return;
  }
  // The outcome is stored and the call charged (settle ran before the charge): tell the client.
  const output = state.output;
  const byId = new Map(output.map((item) => [item.id, item]));
  if (turn.message) {
    const m = turn.message;
    const part = outputText(m.text);
    yield send(textDone(textAt(m), m.text));
    yield send(partDone(textAt(m), part));
    yield send(itemDone(m.index, byId.get(m.id) ?? wire(m)));
  }
  for (const call of turn.calls.values()) {
    yield send(argumentsDone(call.index, call));
    yield send(itemDone(call.index, byId.get(call.id) ?? wire(call)));
  }
  yield send(lifecycle(state.status === "completed" ? "response.completed" : "response.incomplete", state));
}

/** An item as it goes on the wire (without the stream's bookkeeping; a message's text as its part). */
function wire<T extends Item & { index?: number; text?: string }>(i: T): Item {
  const { index: _index, text, ...rest } = i;
  if (rest.type === "message" && text !== undefined) return { ...rest, content: [outputText(text)] } as unknown as Item;
  return rest as unknown as Item;
}
