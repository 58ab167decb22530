// Anthropic's Messages API, for Anthropic-format clients (its SDKs, coding agents): answered in
// Anthropic's shapes, errors included, on every node (translated to a chat completion for
// OpenAI-format nodes, inference/messages/).
import { createMessage } from "../../inference/messages/create-message";
import { countTokens } from "../../inference/messages/count-tokens";
import { ZCountTokens, ZMessage, ZMessageCreate, ZTokenCount } from "../../inference/messages/schema";
import { NODE_CALL } from "../errors";
import { operation } from "../operation";
import { TOKENS } from "./text";

export const messagesCreate = operation({
  id: "messages.create",
  method: "POST",
  path: "/v1/messages",
  summary: "Create a message in Anthropic's Messages API format (its events with `stream: true`)",
  tags: ["Messages"],
  kind: "mutation",
  tier: "billed",
  permission: "text",
  x402: "upto",
  body: { kind: "json" },
  // Passed on to `anthropic` nodes (betas such as context management); ignored by translation.
  headers: { anthropic_beta: "anthropic-beta" },
  input: ZMessageCreate,
  output: ZMessage,
  produces: { kind: "json_or_sse" },
  errors: NODE_CALL,
  pricing: TOKENS,
  cached: true,
  guarded: "messages",
  dialect: "anthropic",
  handler: (ctx, input) => createMessage(input, ctx.principal.workspaceId),
});

export const messagesCountTokens = operation({
  id: "messages.countTokens",
  method: "POST",
  path: "/v1/messages/count_tokens",
  summary: "Count the input tokens of a message request (an estimate for OpenAI-format nodes)",
  tags: ["Messages"],
  kind: "mutation",
  tier: "api_key",
  permission: "text",
  x402: "read",
  body: { kind: "json" },
  headers: { anthropic_beta: "anthropic-beta" },
  input: ZCountTokens,
  output: ZTokenCount,
  produces: { kind: "json" },
  errors: { 404: "No such model (`model_not_found`)." },
  pricing: { kind: "free" },
  dialect: "anthropic",
  handler: (ctx, input) => countTokens(ctx.principal, input),
});
