// POST /v1/moderations: routed to a node serving the moderation model (through its wire format's
// adapter), billed on the input tokens of its texts, counted by the gateway (OpenAI's moderation
// answers carry no usage), after reserving the most they can count.
import { ModelCall } from "../../admission/admit";
import type { Principal } from "../../identity/principal";
import { errors } from "../../kernel/errors";
import { randomBase62 } from "../../kernel/ids";
import { recordCall, type Metering } from "../../ledger/meter";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import type { ModelRow } from "../../routing/catalog/model-row";
import { withFailover } from "../../routing/nodes/router";
import { encoder } from "../chat/count-prompt";
import { defaultModerationModel } from "./default-model";
import { maxModerationCost, maxModerationTokens, moderationCost } from "./moderation-cost";
import { moderationInput, type ModerationInput } from "./moderation-input";
import { ZModerationResult, type ModerationRequest, type ModerationResult } from "./schema";

export async function createModeration(principal: Principal | null, req: ModerationRequest): Promise<ModelCall<ModerationResult>> {
  const { row } = await resolveModel(req.model ?? (await defaultModerationModel(principal)), principal?.workspaceId ?? null);
  if (row.type !== "moderation") {
    throw errors.invalidRequest(`\`${row.id}\` is a ${row.type} model; /v1/moderations needs a moderation model.`, "model", "model_not_supported");
  }
  const input = moderationInput(req.input);
  const spec = { endpoint: "/v1/moderations", model: row.id, maxCost: maxModerationCost(row, input), tokens: maxModerationTokens(row, input) };
  return new ModelCall(spec, (metering) => moderate(metering, row, req, input));
}

async function moderate(metering: Metering, row: ModelRow, req: ModerationRequest, input: ModerationInput): Promise<ModerationResult> {
  const started = performance.now();
  const { result, routed, release } = await withFailover(row.id, async (r) => {
    const answer = await r.node.adapter.moderate(r.node, { ...req, model: r.upstreamModel }, { maxOutputTokens: row.maxOutputTokens });
    return readAnswer(answer, input);
  }, undefined, metering.ctx.attempt);
  release();
  // A node that counted (none of OpenAI's do) is billed on its count; otherwise on the gateway's own, marked as estimated.
  const reported = result.usage?.prompt_tokens;
  const inputTokens = typeof reported === "number" && Number.isInteger(reported) && reported >= 0 ? reported : await countTexts(input.texts);
  const estimated = inputTokens !== reported;
  const cost = moderationCost(row, inputTokens, input.images);
  await recordCall(metering, { modelId: row.id, nodeId: routed.node.id, started }, { inputTokens, images: input.images, estimated, cost });
  return { id: result.id, model: row.id, results: result.results };
}

type NodeAnswer = ModerationResult & { usage?: { prompt_tokens?: unknown } };

/**
 * The node's answer, checked before anything is billed: OpenAI's shape with one result per text
 * (one for a list of parts). Anything else is the node's failure, and another node may do better.
 */
function readAnswer(answer: Record<string, unknown>, input: ModerationInput): NodeAnswer {
  const parsed = ZModerationResult.omit({ model: true, id: true }).safeParse(answer);
  if (!parsed.success || parsed.data.results.length !== input.results) {
    throw new UpstreamFailure("protocol", "the node sent an unreadable moderation answer", 502);
  }
  const id = typeof answer.id === "string" && answer.id.startsWith("modr-") ? answer.id : `modr-${randomBase62(24)}`;
  return { ...parsed.data, id, model: String(answer.model ?? "") } as NodeAnswer;
}

async function countTexts(texts: string[]): Promise<number> {
  const enc = await encoder();
  return texts.reduce((sum, text) => sum + enc.encode(text).length, 0);
}

/**
 * A guardrail's check (server/guardrails/): a moderation model's result for each text, from a node
 * (with failover), within `signal`. Not billed to the caller: the guardrail is the operator's or the
 * workspace's policy, run for it (moderation models are free at OpenAI and on the built-in node).
 */
export async function moderateTexts(model: string, workspaceId: string | null, texts: string[], signal?: AbortSignal): Promise<ModerationResult["results"]> {
  const { row } = await resolveModel(model, workspaceId);
  if (row.type !== "moderation") throw errors.invalidRequest(`\`${row.id}\` is a ${row.type} model, not a moderation model.`, "model", "model_not_supported");
  const req = { model: row.id, input: texts } as ModerationRequest;
  const input = moderationInput(req.input);
  const { result, release } = await withFailover(row.id, async (r) => {
    const answer = await r.node.adapter.moderate(r.node, { ...req, model: r.upstreamModel }, { maxOutputTokens: row.maxOutputTokens });
    return readAnswer(answer, input);
  }, signal);
  release();
  return result.results;
}
