// Imports the models a node publishes into the catalog. Existing entries are left as the
// operators made them (prices are the gateway's decision); new ones are created from the card.
import type { Tx } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import type { ModelCard } from "./model-card";
import { cardToRow } from "./model-row";

export async function importModelCards(tx: Tx, cards: ModelCard[]): Promise<string[]> {
  const existing = new Set((await tx.model.findMany({ select: { id: true } })).map((m) => m.id));
  const created: string[] = [];
  for (const card of cards) {
    if (existing.has(card.id)) continue;
    await tx.model.create({ data: cardToRow(card) });
    created.push(card.id);
  }
  if (created.length) await notify(tx, Channel.catalogChanged);
  return created;
}
