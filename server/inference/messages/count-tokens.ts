// POST /v1/messages/count_tokens on a node that does not count them itself: the prompt's tokens
// as the chat request it becomes (system, turns, tool results, tools), counted by the gateway
// (chat/count-prompt.ts). An estimate, as Anthropic's own count is for models it does not run.
import { allowedModels } from "../../admission/admit";
import type { Principal } from "../../identity/principal";
import { errors } from "../../kernel/errors";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { countChatPrompt } from "../chat/count-prompt";
import type { CountTokens } from "./schema";
import { promptOf } from "./to-chat";

export async function countTokens(principal: Principal | null, req: CountTokens): Promise<{ input_tokens: number }> {
  // 404 for a model the gateway does not have, or that the caller's plan or key does not allow (as GET /v1/models/{id}).
  const allowed = await allowedModels(principal);
  if (allowed && !allowed.has(req.model)) throw errors.modelNotFound(req.model);
  await resolveModel(req.model);
  return { input_tokens: await countChatPrompt(promptOf(req)) };
}
