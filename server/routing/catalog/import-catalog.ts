// Imports the models a node publishes into the catalog. New entries are created from the card.
// Existing entries keep what the operators made of them (names, limits and prices are the
// gateway's decision), but their capabilities follow the card: what a model can be asked for
// (tools, JSON mode, structured outputs, streaming, modalities) is a fact of the node serving
// it, and a node that learns a capability must not stay refused by an older import. So does
// whether it can be fine-tuned. A fine-tuned model a node lists (OpenAI lists an organization's,
// `ft:...`) is never imported nor linked: it would be every workspace's; the gateway's own tuned
// models are registered for their workspace (tuned-models.ts).
import type { Tx } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import type { ModelCard } from "./model-card";
import { capabilityColumns, cardToRow } from "./model-row";

const CAPABILITY_SELECT = {
  id: true,
  inputModalities: true,
  outputModalities: true,
  capJsonMode: true,
  capReasoning: true,
  capStreaming: true,
  capStructuredOutput: true,
  capTools: true,
  fineTunable: true,
} as const;

/** A node's fine-tuned model (OpenAI names them `ft:<base>:<org>:<suffix>:<id>`): never a model of the catalog's. */
export const isNodeTunedModel = (id: string): boolean => id.startsWith("ft:");

/** A node's list without its fine-tuned models. */
export const importable = <M extends { id: string }>(models: M[]): M[] => models.filter((m) => !isNodeTunedModel(m.id));

export async function importModelCards(tx: Tx, cards: ModelCard[]): Promise<string[]> {
  const existing = new Map((await tx.model.findMany({ select: CAPABILITY_SELECT })).map((m) => [m.id, m]));
  const created: string[] = [];
  let changed = false;
  for (const card of importable(cards)) {
    const row = existing.get(card.id);
    if (!row) {
      await tx.model.create({ data: cardToRow(card) });
      created.push(card.id);
      continue;
    }
    const caps = { ...capabilityColumns(card), fineTunable: card.fine_tunable ?? false };
    const { id: _id, ...current } = row;
    if (JSON.stringify(current) === JSON.stringify({ ...current, ...caps })) continue;
    await tx.model.update({ where: { id: card.id }, data: caps });
    changed = true;
  }
  if (created.length || changed) await notify(tx, Channel.catalogChanged);
  return created;
}
