// POST /v1/responses: the conversation is rebuilt (previous_response_id, or a stored conversation's
// items) and translated to a chat completion for the node; the answer becomes output items. Plain,
// streamed, or in the background.
import type { Metering } from "../../ledger/meter";
import { ModelCall } from "../../admission/admit";
import { maxChatBounds } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import type { CallContext } from "../../identity/principal";
import { callNode } from "../chat/call-node";
import { assertChatCapable } from "../chat/create-completion";
import type { ChatCompletionRequest } from "../chat/schema";
import { errors, GatewayError } from "../../kernel/errors";
import type { EventStream } from "../../kernel/event-stream";
import { randomBase62 } from "../../kernel/ids";
import { runInBackground } from "./background";
import { conversationContext, conversationIdOf, ConversationTurn } from "./conversation-turn";
import { normalizeInput, type Item } from "./items";
import { usesMcp } from "./mcp-policy";
import { openState, toResponseObject } from "./response-object";
import type { ResponseCreate } from "./schema";
import { conversationUpTo, deleteStoredResponse, insertResponse } from "./store";
import { streamResponse } from "./stream-response";
import { outputFromCompletion, toChatRequest } from "./translate";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("responses");

/** What came before this turn: a stored conversation's items, or a chain of stored responses (never both). */
async function history(workspaceId: string, previousId: string | null | undefined, conversationId: string | null): Promise<Item[]> {
  if (conversationId) return conversationContext(workspaceId, conversationId);
  if (!previousId) return [];
  try {
    return await conversationUpTo(workspaceId, previousId);
  } catch (err) {
    if (err instanceof GatewayError && err.status === 404) {
      throw errors.notFound(`Previous response with id '${previousId}' not found.`, "previous_response_not_found", "previous_response_id");
    }
    throw err;
  }
}

/**
 * A caller paying with x402 has no account to keep responses in: its responses are not stored, and
 * it can neither continue a stored one or a conversation nor run one in the background (it could not fetch it).
 */
function assertPayable(ctx: CallContext, req: ResponseCreate): ResponseCreate {
  if (ctx.principal.kind !== "x402") return req;
  if (req.previous_response_id) throw errors.invalidRequest("A call paid with x402 cannot continue a stored response; send the whole conversation as input.", "previous_response_id");
  if (req.conversation) throw errors.invalidRequest("A call paid with x402 cannot use a conversation; send the whole conversation as input.", "conversation");
  if (req.background) throw errors.invalidRequest("A call paid with x402 cannot run in the background; leave `background` unset.", "background");
  return { ...req, store: false };
}

export async function createResponse(ctx: CallContext, request: ResponseCreate): Promise<ModelCall<Record<string, unknown> | EventStream>> {
  const req = assertPayable(ctx, request);
  const { row } = await resolveModel(req.model, ctx.principal.workspaceId);
  const workspaceId = ctx.principal.workspaceId;
  const inputItems = normalizeInput(req.input);
  // An unknown (or another workspace's) conversation is refused here, before the call is admitted: nothing is charged.
  const conversationId = conversationIdOf(req.conversation);
  const past = await history(workspaceId, req.previous_response_id, conversationId);
  const id = (ctx.responseId ??= `resp_${randomBase62(24)}`);
  // `mcp` tools: the gateway runs the tool loop (mcp-response.ts).
  if (usesMcp(req, inputItems)) return (await import("./mcp-response")).mcpModelCall(ctx, { req, row, past, inputItems, id, conversationId });
  const chatRequest = toChatRequest(req, [...past, ...inputItems]);
  assertChatCapable(row, { ...chatRequest, stream: req.stream } as ChatCompletionRequest);
  // The usage event's id is the response id: one charge per response. The reservation is held
  // until that charge commits (for background and streamed responses, after the call returns).
  const spec = { endpoint: "/v1/responses", model: row.id, ...maxChatBounds(row, chatRequest), eventId: id };
  const turn = conversationId ? new ConversationTurn(conversationId, inputItems) : null;
  return new ModelCall(spec, (metering) => respond(metering, row, req, chatRequest, inputItems, turn));
}

async function respond(
  metering: Metering,
  row: ModelRow,
  req: ResponseCreate,
  chatRequest: Record<string, unknown>,
  inputItems: Item[],
  turn: ConversationTurn | null,
): Promise<Record<string, unknown> | EventStream> {
  const { ctx } = metering;
  const workspaceId = ctx.principal.workspaceId;
  const state = openState(metering.eventId, row.id, req);

  if (state.background) {
    state.status = "queued";
    await insertResponse(workspaceId, ctx.principal.keyId, state, inputItems);
    runInBackground(metering, row, chatRequest, state.id, turn);
    return toResponseObject(state);
  }
  if (req.stream) return streamResponse({ metering, row, chatRequest, state, inputItems, turn });

  // Stored (and appended to its conversation) before it is charged: a failed write ends the call
  // uncharged (the caller releases the reservation), and a failed charge takes both away again.
  const { result: completion, charge } = await callNode(metering, row, chatRequest);
  const { output, outcome, usage } = outputFromCompletion(completion);
  Object.assign(state, { output, usage, status: outcome.status, incompleteDetails: outcome.incompleteDetails, completedAt: new Date() });
  if (state.store) await insertResponse(workspaceId, ctx.principal.keyId, state, inputItems);
  try {
    await turn?.append(state.output);
    await charge();
  } catch (err) {
    if (state.store) await deleteStoredResponse(state.id).catch((e) => log.error({ err: e }, "could not remove an uncharged response"));
    await turn?.undo();
    throw err;
  }
  return toResponseObject(state);
}
