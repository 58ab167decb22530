// Text: chat completions and the responses API.
import { z } from "zod";
import { createChatCompletion } from "../../inference/chat/create-completion";
import { ZChatCompletion, ZChatCompletionRequest } from "../../inference/chat/schema";
import { createResponse } from "../../inference/responses/create-response";
import { cancelResponse, deleteResponse, listInputItems, retrieveResponse } from "../../inference/responses/manage-responses";
import { ZInputItemsList, ZResponseDeleted, ZResponseObject } from "../../inference/responses/answer-schema";
import { ZInputItemsQuery, ZResponseCreate, ZRetrieveQuery } from "../../inference/responses/schema";
import { NODE_CALL } from "../errors";
import { operation } from "../operation";

/** Calls billed on the tokens the node reports (chat, responses, messages). */
export const TOKENS = { kind: "metered", unit: "tokens", note: "input and output tokens the node reports, at the model's per-1M prices" } as const;
const ZId = z.object({ id: z.string().min(1) });

export const chatCreateCompletion = operation({
  id: "chat.createCompletion",
  method: "POST",
  path: "/v1/chat/completions",
  summary: "Create a chat completion (server-sent events with `stream: true`)",
  tags: ["Chat"],
  kind: "mutation",
  tier: "billed",
  permission: "text",
  x402: "upto",
  body: { kind: "json" },
  input: ZChatCompletionRequest,
  output: ZChatCompletion,
  produces: { kind: "json_or_sse" },
  errors: NODE_CALL,
  pricing: TOKENS,
  cached: true,
  guarded: "chat",
  handler: (ctx, input) => createChatCompletion(input, ctx.principal.workspaceId),
});

export const responsesCreate = operation({
  id: "responses.create",
  method: "POST",
  path: "/v1/responses",
  summary: "Create a response (streamed with `stream: true`, at once with `background: true`)",
  tags: ["Responses"],
  kind: "mutation",
  tier: "billed",
  permission: "text",
  x402: "upto",
  body: { kind: "json" },
  input: ZResponseCreate,
  output: ZResponseObject,
  produces: { kind: "json_or_sse" },
  errors: { ...NODE_CALL, 404: "No such model (`model_not_found`), or no stored response `previous_response_id` (`previous_response_not_found`)." },
  pricing: TOKENS,
  cached: true,
  guarded: "responses",
  handler: (ctx, input) => createResponse(ctx, input),
});

export const responsesGet = operation({
  id: "responses.get",
  method: "GET",
  path: "/v1/responses/{id}",
  summary: "Retrieve a stored response (with `stream=true`, its events as server-sent events, following it while it runs)",
  tags: ["Responses"],
  kind: "query",
  tier: "api_key",
  permission: "text",
  body: { kind: "none" },
  query: true,
  input: ZRetrieveQuery,
  output: ZResponseObject,
  produces: { kind: "json_or_sse" },
  pricing: { kind: "free" },
  handler: (ctx, input) => retrieveResponse(ctx.principal.workspaceId, input),
});

export const responsesDelete = operation({
  id: "responses.delete",
  method: "DELETE",
  path: "/v1/responses/{id}",
  summary: "Delete a stored response",
  tags: ["Responses"],
  kind: "mutation",
  tier: "billed",
  permission: "text",
  body: { kind: "none" },
  input: ZId,
  output: ZResponseDeleted,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => deleteResponse(ctx.principal.workspaceId, input.id),
});

export const responsesCancel = operation({
  id: "responses.cancel",
  method: "POST",
  path: "/v1/responses/{id}/cancel",
  summary: "Cancel a background response",
  tags: ["Responses"],
  kind: "mutation",
  tier: "billed",
  permission: "text",
  body: { kind: "none" },
  input: ZId,
  output: ZResponseObject,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => cancelResponse(ctx.principal.workspaceId, input.id),
});

export const responsesInputItems = operation({
  id: "responses.inputItems",
  method: "GET",
  path: "/v1/responses/{id}/input_items",
  summary: "List the input items of a response",
  tags: ["Responses"],
  kind: "query",
  tier: "api_key",
  permission: "text",
  body: { kind: "none" },
  query: true,
  input: ZInputItemsQuery,
  output: ZInputItemsList,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => listInputItems(ctx.principal.workspaceId, input),
});
