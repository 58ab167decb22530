// The routable nodes, held in memory with their decrypted keys: routing reads no database.
// Read again at once when a node change is notified, and behind the calls every REGISTRY_TTL_MS.
import { db } from "../../infra/db/client";
import { Channel, listen } from "../../infra/db/notify";
import { logFor } from "../../infra/telemetry/log";
import type { ChatAdapter } from "../../providers/adapter";
import { adapterFor } from "../../providers/adapters";
import type { CloudSettings, Signer } from "../../providers/cloud";
import { nodeTarget } from "../../providers/node-target";
import type { Wire } from "../../providers/wire";

const log = logFor("routing");

export type RoutableNode = {
  id: string;
  name: string;
  baseUrl: string;
  apiKey: string | null;
  /** The node's wire format, the adapter that speaks it, and its auth headers (made once, at load). */
  wire: Wire;
  adapter: ChatAdapter;
  headers: Record<string, string>;
  /** A cloud node's settings and per-request signer (providers/node-target.ts). */
  cloud?: CloudSettings;
  sign?: Signer;
  weight: number;
  online: boolean;
  /** Where the node is (ISO country code), for routes that prefer the caller's region. */
  country: string;
  /** Set on a copy for one attempt of a route's target with its own timeouts (providers/http.ts reads them). */
  firstByteTimeoutMs?: number;
  signal?: AbortSignal;
  /** gateway model id -> the node's own model name */
  models: Map<string, string>;
};

const REGISTRY_TTL_MS = 5000;
const state = globalThis as unknown as {
  gatewayNodes?: { nodes: RoutableNode[]; loadedAt: number };
  gatewayNodesLoading?: Promise<RoutableNode[]>;
  /** Bumped by every invalidation: a load that started before one must not be kept. */
  gatewayNodesGeneration?: number;
};
let subscribed: Promise<void> | undefined;

async function load(): Promise<RoutableNode[]> {
  const generation = state.gatewayNodesGeneration ?? 0;
  const rows = await db.node.findMany({ where: { enabled: true }, include: { models: true }, orderBy: { createdAt: "asc" } });
  const nodes = rows.flatMap((r) => {
    let target;
    try {
      target = nodeTarget(r);
    } catch (err) {
      // One node whose settings or credentials cannot be read must not take the others down.
      log.error({ err, node: r.id }, "node registry: the node's credentials could not be read; it is not routed to");
      return [];
    }
    return {
      id: r.id,
      name: r.name,
      ...target,
      headers: target.headers ?? {},
      wire: r.wire,
      adapter: adapterFor(r.wire),
      weight: r.weight,
      online: r.status === "online",
      country: r.country.toUpperCase(),
      models: new Map(r.models.map((m) => [m.modelId, m.upstreamModel])),
    };
  });
  if ((state.gatewayNodesGeneration ?? 0) === generation) state.gatewayNodes = { nodes, loadedAt: Date.now() };
  return nodes;
}

export function invalidateNodes(): void {
  state.gatewayNodesGeneration = (state.gatewayNodesGeneration ?? 0) + 1;
  state.gatewayNodes = undefined;
  state.gatewayNodesLoading = undefined; // the next call reads again, after the change
}

export async function getRoutableNodes(): Promise<RoutableNode[]> {
  subscribed ??= listen(Channel.nodesChanged, invalidateNodes).catch((err) => {
    subscribed = undefined;
    log.error({ err }, "node registry: LISTEN failed");
  });
  const current = state.gatewayNodes;
  if (!current) return reload();
  // Past the TTL (a safety net for a missed notification) calls are served from the nodes held
  // while they are read again behind them, as the catalog is (catalog-cache.ts).
  if (Date.now() - current.loadedAt >= REGISTRY_TTL_MS && !state.gatewayNodesLoading) {
    reload().catch((err) => log.error({ err }, "node registry: reading the nodes again failed; the ones held are kept"));
  }
  return current.nodes;
}

function reload(): Promise<RoutableNode[]> {
  const loading = (state.gatewayNodesLoading ??= load().finally(() => {
    if (state.gatewayNodesLoading === loading) state.gatewayNodesLoading = undefined;
  }));
  return loading;
}
