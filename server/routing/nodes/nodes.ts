// Registering, listing and removing nodes.
import { z } from "zod";
import { ZModelCard, type ModelCard } from "../catalog/model-card";
import { importable, importModelCards } from "../catalog/import-catalog";
import { diff, recordAudit, type AuditActor, type AuditChanges } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { errors, GatewayError } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { listNodeModels, type UpstreamModel } from "../../providers/model-lists";
import { nodeBaseUrl, WIRES } from "../../providers/wire";
import { isCloudWire, ZCloudCredentials, ZCloudSettings } from "../../providers/cloud";
import { CLOUD_SPECS } from "../../providers/cloud-wires";
import { assertOutboundUrlAllowed } from "../../infra/net/outbound-policy";
import { nodeTarget, type StoredNode } from "../../providers/node-target";
import { nodeInclude, toNodeView, type NodeRow, type NodeView } from "./node-view";
import { open, seal } from "../../infra/secret-box";

export const ZAddNodeInput = z.object({
  name: z.string().trim().min(1).max(64).regex(/^[\w.-]+$/, "letters, digits, '.', '_' and '-' only"),
  /** The node's address; a cloud node's defaults to its service's, from its settings (`--endpoint` overrides it). */
  url: z
    .string()
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "must be an http(s) URL such as http://127.0.0.1:8000/v1")
    .transform((u) => u.replace(/\/+$/, ""))
    .optional(),
  apiKey: z.string().min(1).optional(),
  /** The node's wire format: OpenAI's (default), Anthropic's Messages API, Gemini's API, or a cloud's (Azure OpenAI, Bedrock, Vertex AI). */
  wire: z.enum(WIRES).default("openai"),
  /** A cloud node's settings (region, project, location, api-version, managed identity). */
  cloud: ZCloudSettings.optional(),
  /** A cloud node's credentials (AWS keys, an Entra application, a service account), sealed at rest. */
  credentials: ZCloudCredentials.optional(),
  city: z.string().trim().min(1).max(100),
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "must be a two-letter ISO 3166-1 country code")
    .transform((c) => c.toUpperCase()),
  weight: z.number().int().min(1).max(1000).default(1),
  /** Explicit mappings gateway model id -> upstream model name, beside those discovered. */
  models: z.record(z.string(), z.string()).default({}),
  /** Ask the node which models it serves (GET {url}/models). */
  discover: z.boolean().default(true),
});
export type AddNodeInput = z.input<typeof ZAddNodeInput>;
/**
 * What a node's audit events compare. Nodes are the gateway's, not a workspace's: their events
 * have no workspace. The upstream key is compared sealed (a new key is a change) and never shown.
 */
export function nodeChanges(before: NodeRow | null, after: NodeRow | null): AuditChanges {
  const fields = (r: NodeRow | null) =>
    r && {
      name: r.name,
      url: r.baseUrl,
      wire: r.wire,
      cloud: r.cloud === null ? null : JSON.stringify(r.cloud),
      city: r.city,
      country: r.country,
      weight: r.weight,
      enabled: r.enabled,
      models: r.models.map((m) => m.modelId),
      api_key: r.apiKeyEncrypted,
      credentials: r.credentialsEncrypted,
    };
  return diff(fields(before), fields(after), ["name", "url", "wire", "cloud", "city", "country", "weight", "enabled", "models"], ["api_key", "credentials"]);
}

/**
 * Where a node is: its URL, or a cloud node's service address from its settings. A cloud's
 * address (the service's, or one given as --endpoint) passes the outbound guard's rules.
 */
function nodeUrl(data: z.output<typeof ZAddNodeInput>): string {
  if (!isCloudWire(data.wire)) {
    if (data.cloud || data.credentials) throw errors.invalidRequest(`Cloud settings and credentials are for the azure, bedrock and vertex wire formats, not ${data.wire}.`, "wire");
    if (!data.url) throw errors.invalidRequest("A node needs its URL (--url).", "url");
    return data.url;
  }
  const url = data.url ?? CLOUD_SPECS[data.wire].endpoint(data.cloud ?? {});
  assertOutboundUrlAllowed(url, "url");
  // How its calls would authenticate, made once now: settings or credentials that cannot work are a 400 here.
  CLOUD_SPECS[data.wire].auth(data.cloud ?? {}, data.apiKey ?? null, data.credentials ?? null);
  // A service account key names the token endpoint its JWT is exchanged at: fetched too.
  const tokenUri = data.credentials?.service_account?.token_uri;
  if (typeof tokenUri === "string") assertOutboundUrlAllowed(tokenUri, "credentials.service_account.token_uri");
  return url;
}

export type AddedNode = { node: NodeView; discovered: number; importedModels: string[]; discoveryError?: string };

/**
 * A key sealed under another secret than the gateway's could never be opened by it. When other
 * node keys exist, this process must be able to open them, or it holds the wrong GATEWAY_SECRET.
 */
async function assertSameSecret(): Promise<void> {
  const sample = await db.node.findFirst({ where: { apiKeyEncrypted: { not: null } }, select: { apiKeyEncrypted: true } });
  if (!sample?.apiKeyEncrypted) return;
  try {
    open(sample.apiKeyEncrypted);
  } catch {
    throw new GatewayError({
      status: 409,
      code: "secret_mismatch",
      message: "This process's GATEWAY_SECRET is not the one the existing node keys were sealed with; set the gateway's GATEWAY_SECRET (or DATA_DIR) and retry.",
    });
  }
}

async function discover(node: StoredNode): Promise<{ models: UpstreamModel[]; error?: string }> {
  try {
    return { models: importable(await listNodeModels(nodeTarget(node), env.HEALTH_CHECK_TIMEOUT_MS)) };
  } catch (err) {
    return { models: [], error: (err as Error).message };
  }
}

/**
 * Adds a node. Models the node publishes full cards for (as the built-in node does, and as an
 * Anthropic or Gemini node's list becomes, unpriced) join the catalog; other upstream models are linked when a catalog model has the same id, or through
 * the explicit `models` map.
 */
export async function addNode(input: AddNodeInput, actor?: AuditActor): Promise<AddedNode> {
  const data = ZAddNodeInput.parse(input);
  if (await db.node.findUnique({ where: { name: data.name }, select: { id: true } })) {
    throw errors.invalidRequest(`A node named ${data.name} already exists`, "name", "node_exists");
  }
  if (data.apiKey || data.credentials) await assertSameSecret();
  const stored: StoredNode = {
    baseUrl: nodeBaseUrl(nodeUrl(data), data.wire),
    wire: data.wire,
    apiKeyEncrypted: data.apiKey ? seal(data.apiKey) : null,
    cloud: data.cloud ?? null,
    credentialsEncrypted: data.credentials ? seal(JSON.stringify(data.credentials)) : null,
  };
  const baseUrl = stored.baseUrl;
  const found = data.discover ? await discover(stored) : { models: [] };
  const cards: ModelCard[] = found.models.flatMap((m) => {
    const card = ZModelCard.safeParse(m);
    return card.success ? [card.data] : [];
  });
  return db.$transaction(async (tx) => {
    const importedModels = await importModelCards(tx, cards);
    const catalogIds = new Set((await tx.model.findMany({ select: { id: true } })).map((m) => m.id));
    const links = new Map<string, string>();
    for (const m of found.models) if (catalogIds.has(m.id)) links.set(m.id, m.id);
    for (const [modelId, upstream] of Object.entries(data.models)) {
      if (!catalogIds.has(modelId)) throw errors.modelNotFound(modelId);
      links.set(modelId, upstream);
    }
    const row = await tx.node.create({
      data: {
        id: newId("node"),
        name: data.name,
        baseUrl,
        wire: data.wire,
        apiKeyEncrypted: stored.apiKeyEncrypted,
        ...(data.cloud ? { cloud: data.cloud } : {}),
        credentialsEncrypted: stored.credentialsEncrypted,
        city: data.city,
        country: data.country,
        weight: data.weight,
        models: { create: [...links].map(([modelId, upstreamModel]) => ({ modelId, upstreamModel })) },
      },
      include: nodeInclude,
    });
    await notify(tx, Channel.nodesChanged, row.id);
    await recordAudit(tx, { workspaceId: null, actor, action: "node.add", target: { type: "node", id: row.id }, changes: nodeChanges(null, row) });
    return { node: toNodeView(row), discovered: found.models.length, importedModels, discoveryError: found.error };
  });
}

export async function listNodes(): Promise<NodeView[]> {
  const rows = await db.node.findMany({ include: nodeInclude, orderBy: { createdAt: "asc" } });
  return rows.map(toNodeView);
}

export async function removeNode(id: string, actor?: AuditActor): Promise<NodeView> {
  return db.$transaction(async (tx) => {
    const row = await tx.node.findUnique({ where: { id }, include: nodeInclude });
    if (!row) throw errors.notFound(`No node with id ${id}`, "node_not_found");
    await tx.node.delete({ where: { id } });
    await notify(tx, Channel.nodesChanged, id);
    await recordAudit(tx, { workspaceId: null, actor, action: "node.remove", target: { type: "node", id }, changes: nodeChanges(row, null) });
    return toNodeView(row);
  });
}
