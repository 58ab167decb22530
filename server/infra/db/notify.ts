// Cross-instance cache invalidation over PostgreSQL LISTEN/NOTIFY. A notification sent inside a
// transaction is delivered when it commits, so listeners never see a change that rolled back.
import pg from "pg";
import type { Tx } from "./client";
import { databaseUrl } from "./client";

export const Channel = {
  keyChanged: "gateway_key_changed",
  catalogChanged: "gateway_catalog_changed",
  nodesChanged: "gateway_nodes_changed",
  /** Payload: a workspace id whose free balance grew (credits, a released reservation, a lease given back). */
  balanceChanged: "gateway_balance_changed",
  /** Payload: a workspace id whose plans or default limits changed. */
  plansChanged: "gateway_plans_changed",
  /** Payload: a session id (jti) revoked, or "*". */
  sessionChanged: "gateway_session_changed",
  /** Payload: "*": a signing key was added or retired. */
  signingKeysChanged: "gateway_signing_keys_changed",
  /** Payload: "*": a trusted issuer was added or removed. */
  issuersChanged: "gateway_issuers_changed",
  /** Payload: `<workspace id> [model:<id>|key:<id>|entry:<scope> <hash>]`: response cache entries removed or replaced. */
  responseCacheCleared: "gateway_response_cache_cleared",
  /** Payload: `fail|ok <instance> <node id>`: a call to a node failed, or a node with failures served one. */
  breaker: "gateway_breaker",
  /** Payload: a batch id: a batch was created (instances start their batch process, server/batches/demand.ts). */
  batchQueued: "gateway_batch_queued",
  /** Payload: `<scope> <name>`: a route was set or removed (server/routing/routes/route-cache.ts). */
  routesChanged: "gateway_routes_changed",
  /** Payload: `<until ms> <target key>`: a route's target said to wait (Retry-After); every process passes it over until then. */
  routeCooldown: "gateway_route_cooldown",
  /** Payload: a workspace id whose MCP servers changed, or "*" (the operator's; server/mcp/registry/). */
  mcpServersChanged: "gateway_mcp_servers_changed",
  /** Payload: an MCP session id ended (server/mcp/endpoint/sessions.ts). */
  mcpSessionEnded: "gateway_mcp_session_ended",
  /** Payload: a workspace id whose single sign-on connection or domains changed (server/identity/sso/). */
  ssoChanged: "gateway_sso_changed",
} as const;
export type ChannelName = (typeof Channel)[keyof typeof Channel];

type Handler = (payload: string) => void;
type Notifier = Pick<Tx, "$executeRaw">;

export async function notify(tx: Notifier, channel: ChannelName, payload = ""): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
}

const state = globalThis as unknown as {
  gatewayListeners?: Map<string, Set<Handler>>;
  gatewayListenClient?: Promise<pg.Client> | undefined;
};
const listeners = (state.gatewayListeners ??= new Map());

/** Calls every handler of every channel with "*" (used after a reconnect: anything may have changed). */
function broadcastReset(): void {
  for (const handlers of listeners.values()) for (const h of handlers) h("*");
}

function connect(): Promise<pg.Client> {
  state.gatewayListenClient ??= (async () => {
    const client = new pg.Client({ connectionString: databaseUrl(), keepAlive: true });
    const reconnect = () => {
      state.gatewayListenClient = undefined;
      client.end().catch(() => undefined);
      setTimeout(() => connect().then(broadcastReset, reconnect), 1000).unref();
    };
    client.on("error", reconnect);
    client.on("end", () => state.gatewayListenClient === undefined || reconnect());
    client.on("notification", (msg) => {
      for (const h of listeners.get(msg.channel) ?? []) h(msg.payload ?? "");
    });
    await client.connect();
    for (const channel of listeners.keys()) await client.query(`LISTEN ${channel}`);
    // A half-open connection (e.g. after a database failover) is only noticed when used.
    const ping = setInterval(() => client.query("SELECT 1").catch(reconnect), 30_000).unref();
    client.on("end", () => clearInterval(ping));
    return client;
  })();
  return state.gatewayListenClient;
}

let queue: Promise<unknown> = Promise.resolve();

/** Subscribes to a channel; the handler also receives "*" after a reconnect. */
export async function listen(channel: ChannelName, handler: Handler): Promise<void> {
  let handlers = listeners.get(channel);
  if (!handlers) {
    handlers = new Set();
    listeners.set(channel, handlers);
    // One query at a time on the listening connection.
    const run = queue.then(async () => (await connect()).query(`LISTEN ${channel}`));
    queue = run.catch(() => undefined);
    try {
      await run;
    } catch (err) {
      listeners.delete(channel); // so that a later call subscribes again
      throw err;
    }
  }
  handlers.add(handler);
}

export async function stopListening(): Promise<void> {
  const pending = state.gatewayListenClient;
  state.gatewayListenClient = undefined;
  listeners.clear();
  if (pending) await (await pending).end().catch(() => undefined);
}
