// Keeps a node registration in step with a node that is started with the gateway (the built-in
// node): creates it the first time, afterwards updates its address, key and region, and links
// every model it publishes.
import { ZModelCard } from "../catalog/model-card";
import { importable, importModelCards } from "../catalog/import-catalog";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { newId } from "../../kernel/ids";
import { listUpstreamModels } from "../../providers/openai-compatible/list-models";
import { seal } from "../../infra/secret-box";

export type NodeRegistration = { name: string; url: string; apiKey: string | null; city: string; country: string };

export async function registerNode(reg: NodeRegistration): Promise<{ nodeId: string; models: string[]; imported: string[] }> {
  const upstream = importable(await listUpstreamModels(reg.url, reg.apiKey, env.HEALTH_CHECK_TIMEOUT_MS));
  const cards = upstream.flatMap((m) => {
    const parsed = ZModelCard.safeParse(m);
    return parsed.success ? [parsed.data] : [];
  });
  return db.$transaction(async (tx) => {
    const imported = await importModelCards(tx, cards);
    const fields = {
      baseUrl: reg.url,
      apiKeyEncrypted: reg.apiKey ? seal(reg.apiKey) : null,
      city: reg.city,
      country: reg.country,
    };
    const node = await tx.node.upsert({
      where: { name: reg.name },
      create: { id: newId("node"), name: reg.name, ...fields },
      update: fields,
    });
    const known = new Set((await tx.model.findMany({ select: { id: true } })).map((m) => m.id));
    const models = upstream.map((m) => m.id).filter((id) => known.has(id));
    await tx.nodeModel.createMany({
      data: models.map((modelId) => ({ nodeId: node.id, modelId, upstreamModel: modelId })),
      skipDuplicates: true,
    });
    await notify(tx, Channel.nodesChanged, node.id);
    return { nodeId: node.id, models, imported };
  });
}
