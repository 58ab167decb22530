// Editing a node from the operator dashboard. A new address or key means another server, whose
// models are read again before anything is saved: a node is never left pointing at a server
// whose model list nobody checked.
import { z } from "zod";
import { ZModelCard } from "../catalog/model-card";
import { importable, importModelCards } from "../catalog/import-catalog";
import { recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { errors } from "../../kernel/errors";
import { listNodeModels, type UpstreamModel } from "../../providers/model-lists";
import { nodeTarget, type StoredNode } from "../../providers/node-target";
import { nodeBaseUrl } from "../../providers/wire";
import { isCloudWire } from "../../providers/cloud";
import { assertOutboundUrlAllowed } from "../../infra/net/outbound-policy";
import { checkNode } from "./health-check";
import { nodeInclude, toNodeView, type NodeView } from "./node-view";
import { nodeChanges, ZAddNodeInput } from "./nodes";
import { open, seal } from "../../infra/secret-box";

const fields = ZAddNodeInput.shape;

export const ZUpdateNodeInput = z.object({
  id: z.string().min(1),
  name: fields.name.optional(),
  url: fields.url.optional(),
  /** A new upstream key; null removes the key; absent keeps it. */
  apiKey: z.string().min(1).nullable().optional(),
  city: fields.city.optional(),
  country: fields.country.optional(),
  weight: z.number().int().min(1).max(1000).optional(),
  enabled: z.boolean().optional(),
});
export type UpdateNodeInput = z.input<typeof ZUpdateNodeInput>;

/** The node's models at its new URL, or with its new key. */
async function listAt(node: StoredNode, url: string, apiKey: string | null): Promise<UpstreamModel[]> {
  try {
    return importable(await listNodeModels(nodeTarget({ ...node, baseUrl: url, apiKeyEncrypted: apiKey ? seal(apiKey) : null }), env.HEALTH_CHECK_TIMEOUT_MS));
  } catch (err) {
    throw errors.invalidRequest(`The node at ${url} did not list its models (${(err as Error).message}); nothing was changed.`, "url", "node_unreachable");
  }
}

export async function updateNode(input: UpdateNodeInput, actor?: AuditActor): Promise<NodeView> {
  const data = ZUpdateNodeInput.parse(input);
  const current = await db.node.findUnique({ where: { id: data.id }, include: nodeInclude });
  if (!current) throw errors.notFound(`No node with id ${data.id}`, "node_not_found");
  if (data.name && data.name !== current.name && (await db.node.findUnique({ where: { name: data.name }, select: { id: true } }))) {
    throw errors.invalidRequest(`A node named ${data.name} already exists`, "name", "node_exists");
  }
  const url = data.url ? nodeBaseUrl(data.url, current.wire) : current.baseUrl;
  if (url !== current.baseUrl && isCloudWire(current.wire)) {
    assertOutboundUrlAllowed(url, "url");
    // Its tokens would go to the new address: credentials are given again with a new node.
    if (current.credentialsEncrypted) throw errors.invalidRequest("A cloud node's credentials were given for its address: to move it, add it again with its credentials (and remove this one).", "url", "credentials_required");
  }
  // The stored key was given for one server: it is never sent to another one unless given again.
  if (url !== current.baseUrl && current.apiKeyEncrypted && data.apiKey === undefined) {
    throw errors.invalidRequest("Changing the URL of a node with an API key needs the key again (or null to drop it).", "apiKey", "api_key_required");
  }
  const apiKey = data.apiKey === undefined ? (current.apiKeyEncrypted ? open(current.apiKeyEncrypted) : null) : data.apiKey;
  const moved = url !== current.baseUrl || data.apiKey !== undefined;
  const upstream = moved ? await listAt(current, url, apiKey) : null;

  const row = await db.$transaction(async (tx) => {
    if (upstream) {
      const cards = upstream.flatMap((m) => {
        const card = ZModelCard.safeParse(m);
        return card.success ? [card.data] : [];
      });
      await importModelCards(tx, cards);
      const catalogIds = new Set((await tx.model.findMany({ select: { id: true } })).map((m) => m.id));
      const listed = new Set(upstream.map((m) => m.id));
      // Links by id for what the server lists, plus explicit mappings whose upstream name it still lists.
      const links = new Map([...listed].filter((id) => catalogIds.has(id)).map((id) => [id, id]));
      for (const link of current.models) if (listed.has(link.upstreamModel) && !links.has(link.modelId)) links.set(link.modelId, link.upstreamModel);
      // A workspace's fine-tuned models are not in the node's list (tuned-models.ts): they stay where they were trained.
      const tuned = await tx.model.findMany({ where: { id: { in: current.models.map((l) => l.modelId) }, ownerWorkspaceId: { not: null } }, select: { id: true } });
      for (const t of tuned) links.set(t.id, current.models.find((l) => l.modelId === t.id)!.upstreamModel);
      await tx.nodeModel.deleteMany({ where: { nodeId: current.id } });
      await tx.nodeModel.createMany({ data: [...links].map(([modelId, upstreamModel]) => ({ nodeId: current.id, modelId, upstreamModel })) });
    }
    const updated = await tx.node.update({
      where: { id: current.id },
      data: {
        name: data.name,
        city: data.city,
        country: data.country,
        weight: data.weight,
        enabled: data.enabled,
        // Another server: its health is unknown until checked, whatever the old one's was.
        ...(moved
          ? { baseUrl: url, apiKeyEncrypted: apiKey ? seal(apiKey) : null, status: "unknown" as const, lastError: null, lastLatencyMs: null }
          : {}),
      },
      include: nodeInclude,
    });
    // Every gateway process reloads its routable nodes and catalog on this notification.
    await notify(tx, Channel.nodesChanged, current.id);
    await recordAudit(tx, { workspaceId: null, actor, action: "node.update", target: { type: "node", id: current.id }, changes: nodeChanges(current, updated) });
    return updated;
  });
  if (moved || (data.enabled && !current.enabled)) await refreshHealth(row.id);
  return toNodeView((await db.node.findUnique({ where: { id: row.id }, include: nodeInclude })) ?? row);
}

/** Checks a node now, so the dashboard shows its health at once instead of after the next round. */
export async function refreshHealth(nodeId: string): Promise<void> {
  const node = await db.node.findUnique({
    where: { id: nodeId },
    select: { id: true, baseUrl: true, wire: true, apiKeyEncrypted: true, cloud: true, credentialsEncrypted: true, status: true, enabled: true },
  });
  if (node?.enabled) await checkNode(node).catch(() => false);
}
