// POST /v1/messages/count_tokens: asked of an `anthropic` node serving the model (Anthropic's own
// count), else the prompt's tokens as the chat request it becomes (system, turns, tool results,
// tools), counted by the gateway (chat/count-prompt.ts): an estimate, as Anthropic's own count is
// for models it does not run. A node that fails to count is answered by the estimate.
import { allowedModels } from "../../admission/admit";
import type { Principal } from "../../identity/principal";
import { errors } from "../../kernel/errors";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { countTokensOn } from "../../providers/messages-passthrough";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { pickNode } from "../../routing/nodes/router";
import { countChatPrompt } from "../chat/count-prompt";
import type { CountTokens } from "./schema";
import { promptOf } from "./to-chat";

export async function countTokens(principal: Principal | null, req: CountTokens): Promise<{ input_tokens: number }> {
  // 404 for a model the gateway does not have, or that the caller's plan or key does not allow (as GET /v1/models/{id}).
  const allowed = await allowedModels(principal);
  if (allowed && !allowed.has(req.model)) throw errors.modelNotFound(req.model);
  const { row } = await resolveModel(req.model, principal?.workspaceId ?? null);
  const routed = await pickNode(row.id, new Set(), (node) => node.wire === "anthropic");
  if (routed) {
    const { anthropic_beta: beta, ...body } = req as Record<string, unknown>;
    const counted = await countTokensOn(routed.node, { ...body, model: routed.upstreamModel }, typeof beta === "string" ? beta : undefined).catch((err: unknown) => {
      if (err instanceof UpstreamFailure) return null;
      throw err;
    });
    if (counted) return counted;
  }
  return { input_tokens: await countChatPrompt(promptOf(req)) };
}
