// The /v1/moderations operations: classify texts (and multi-modal parts) with a moderation model.
import { createModeration } from "../../inference/moderations/create-moderation";
import { ZModerationRequest, ZModerationResult } from "../../inference/moderations/schema";
import { NODE_CALL } from "../errors";
import { operation } from "../operation";

export const moderationsCreate = operation({
  id: "moderations.create",
  method: "POST",
  path: "/v1/moderations",
  summary: "Classify text (and images, where the model can) for harmful content",
  tags: ["Moderations"],
  kind: "mutation",
  tier: "billed",
  permission: "text",
  // Metered like embeddings: the input tokens are only known once counted, up to the most the texts can hold.
  x402: "upto",
  body: { kind: "json" },
  input: ZModerationRequest,
  output: ZModerationResult,
  produces: { kind: "json" },
  errors: NODE_CALL,
  pricing: { kind: "metered", unit: "tokens", note: "input tokens of the texts, counted by the gateway, at input_per_1m (plus image parts at per_image); the built-in local-moderation is free" },
  handler: (ctx, input) => createModeration(ctx.principal, input),
});

export const moderationsOperations = { create: moderationsCreate } as const;
