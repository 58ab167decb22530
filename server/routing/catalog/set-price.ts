// An operator prices a chat or embedding model, per million tokens: what an Anthropic or Gemini
// node's model list cannot say. A model imported without a price is "unpriced" and not served
// (never billed at $0); pricing it makes it "active". Also its fine-tuning prices: per 1M tokens
// trained, and what the models tuned from it cost in and out (each left as it is when not given;
// the input and output prices may then be left out, for a model already priced).
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { DECIMAL_STRING } from "../../kernel/money";
import { modelInclude, toModelDetail } from "./model-row";
import type { ModelDetail } from "./model-card";

const price = z.string().trim().regex(DECIMAL_STRING, "must be a decimal number of USD such as 3 or 0.30");

export const ZSetPriceInput = z.object({
  model: z.string().min(1),
  input: price.optional(),
  output: price.optional(),
  cacheRead: price.optional(),
  cacheWrite: price.optional(),
  reasoning: price.optional(),
  training: price.optional(),
  ftInput: price.optional(),
  ftOutput: price.optional(),
});
export type SetPriceInput = z.input<typeof ZSetPriceInput>;

/** The prices a model's audit event compares (per 1M tokens). */
const PRICE_FIELDS = [
  "priceInputPer1m",
  "priceOutputPer1m",
  "priceCacheReadPer1m",
  "priceCacheWritePer1m",
  "priceReasoningPer1m",
  "priceTrainingPer1m",
  "priceFtInputPer1m",
  "priceFtOutputPer1m",
  "pricingStatus",
] as const;
const PRICE_SELECT = Object.fromEntries(PRICE_FIELDS.map((f) => [f, true])) as Record<(typeof PRICE_FIELDS)[number], true>;

export async function setModelPrice(input: SetPriceInput, actor?: AuditActor): Promise<ModelDetail> {
  const p = ZSetPriceInput.parse(input);
  return db.$transaction(async (tx) => {
    const row = await tx.model.findUnique({ where: { id: p.model }, select: { type: true, ...PRICE_SELECT } });
    if (!row) throw errors.modelNotFound(p.model);
    if (row.type !== "chat" && row.type !== "embedding") {
      throw errors.invalidRequest(`\`${p.model}\` is a ${row.type} model: its prices come from its node's card.`, "model");
    }
    const fineTuning = { priceTrainingPer1m: p.training, priceFtInputPer1m: p.ftInput, priceFtOutputPer1m: p.ftOutput };
    const updated = await tx.model.update({
      where: { id: p.model },
      data: { ...tokenPrices(p, row.pricingStatus), ...fineTuning },
      include: modelInclude,
    });
    await notify(tx, Channel.catalogChanged);
    const changes = diff(row, updated, PRICE_FIELDS);
    await recordAudit(tx, { workspaceId: null, actor, action: "model.price", target: { type: "model", id: p.model }, changes });
    return toModelDetail(updated, false);
  });
}

/** The token prices to set: all of them from `input` and `output`, or none (only the fine-tuning prices change). */
function tokenPrices(p: z.output<typeof ZSetPriceInput>, status: string) {
  if (p.input === undefined || p.output === undefined) {
    if (p.input !== undefined || p.output !== undefined) throw errors.invalidRequest("Give both the input and the output price, or neither.", p.input === undefined ? "input" : "output");
    if (status === "unpriced") throw errors.invalidRequest(`\`${p.model}\` has no price yet: give its input and output prices.`, "input");
    if (p.cacheRead ?? p.cacheWrite ?? p.reasoning) throw errors.invalidRequest("The cache and reasoning prices are set with the input and output prices.", "input");
    if (p.training === undefined && p.ftInput === undefined && p.ftOutput === undefined) throw errors.invalidRequest("Give at least one price.", "input");
    return {};
  }
  return {
    priceInputPer1m: p.input,
    priceOutputPer1m: p.output,
    // Cache reads cost the input price unless said otherwise; 0 bills cache writes at the input price.
    priceCacheReadPer1m: p.cacheRead ?? p.input,
    priceCacheWritePer1m: p.cacheWrite ?? "0",
    priceReasoningPer1m: p.reasoning ?? p.output,
    pricingStatus: "active",
  };
}

/** The models waiting for a price, with the nodes they came from. */
export async function listUnpricedModels(): Promise<{ id: string; displayName: string; type: string; nodes: string[] }[]> {
  const rows = await db.model.findMany({
    where: { pricingStatus: "unpriced" },
    select: { id: true, displayName: true, type: true, nodes: { select: { node: { select: { name: true } } } } },
    orderBy: { id: "asc" },
  });
  return rows.map((r) => ({ id: r.id, displayName: r.displayName, type: r.type, nodes: r.nodes.map((n) => n.node.name) }));
}
