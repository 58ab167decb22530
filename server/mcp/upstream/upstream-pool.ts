// Open connections to registered servers, per holder (an /mcp session, or a response's run) and
// server, so that a tool call costs one request to its server. A server's session is kept by the
// holder's store (the /mcp session's row in PostgreSQL): a connection opened on another instance,
// or before a restart, is resumed by its id instead of a new handshake. A server that has
// forgotten the session (404) gets a new one, once, and the call is sent again (the server did not
// run it). Connections unused for IDLE_MS, and past MAX_OPEN, are closed (their server sessions
// stay, for whoever resumes them).
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { boundedLru } from "../../infra/cache/bounded-lru";
import type { McpServerEntry } from "../server-def";
import { connectUpstream, type Upstream, type UpstreamSession } from "./connect";
import { transportStatus, upstreamFailure } from "./upstream-errors";
import { dropToken } from "./oauth-token";

/** Where a holder keeps the server sessions it opened (null: a holder that keeps none). */
export type SessionStore = {
  /** The session kept for `serverId`, if any. */
  get(serverId: string): Promise<UpstreamSession | null>;
  /** Keeps `session` unless one is kept already; returns the one kept. */
  remember(serverId: string, session: UpstreamSession): Promise<UpstreamSession>;
  /** Forgets the session `sessionId` kept for `serverId` (the server no longer knows it). */
  forget(serverId: string, sessionId: string): Promise<void>;
};

const IDLE_MS = 5 * 60_000;
const MAX_OPEN = 2000;

const open = boundedLru<string, Promise<Upstream>>(MAX_OPEN, {
  ttl: IDLE_MS,
  updateAgeOnGet: true,
  dispose: (upstream) => void upstream.then((u) => u.close()).catch(() => undefined),
});

async function connect(server: McpServerEntry, store: SessionStore | null): Promise<Upstream> {
  const kept = store && server.transport === "streamable_http" ? await store.get(server.id) : null;
  if (kept) return connectUpstream(server, kept);
  const upstream = await connectUpstream(server);
  if (!store || !upstream.session) return upstream;
  const winner = await store.remember(server.id, upstream.session);
  if (winner.sessionId === upstream.session.sessionId) return upstream;
  // Another instance opened one for the same holder meanwhile: its session is the holder's.
  await upstream.terminate().catch(() => undefined);
  return connectUpstream(server, winner);
}

function connection(key: string, server: McpServerEntry, store: SessionStore | null): Promise<Upstream> {
  let upstream = open.get(key);
  if (!upstream) {
    upstream = connect(server, store);
    open.set(key, upstream);
    upstream.catch(() => open.get(key) === upstream && open.delete(key));
  }
  return upstream;
}

/**
 * Runs `use` on a connection to `server` held for `holder`. Throws the MCP error the server
 * answered (McpError), or a GatewayError when it could not be reached.
 */
export async function withUpstream<T>(server: McpServerEntry, holder: string, store: SessionStore | null, use: (u: Upstream) => Promise<T>): Promise<T> {
  const key = `${holder}|${server.id}|${server.revision ?? server.url}`;
  for (let attempt = 0; ; attempt++) {
    let upstream: Upstream;
    try {
      upstream = await connection(key, server, store);
    } catch (err) {
      throw upstreamFailure(server.name, err);
    }
    try {
      return await use(upstream);
    } catch (err) {
      if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed && err.code !== ErrorCode.RequestTimeout) throw err; // the server's own answer
      const status = transportStatus(err);
      open.delete(key);
      if (status === 404 && attempt === 0 && store && upstream.session) {
        await store.forget(server.id, upstream.session.sessionId);
        continue;
      }
      // An access token the server no longer accepts: another one, once.
      if (status === 401 && attempt === 0 && server.auth.kind === "oauth") {
        dropToken(server.id);
        continue;
      }
      throw upstreamFailure(server.name, err);
    }
  }
}

/** Closes the connections held for `holder` (a run that ended), ending their server sessions. */
export async function releaseHolder(holder: string): Promise<void> {
  const keys = [...open.keys()].filter((key) => key.startsWith(`${holder}|`));
  await Promise.all(keys.map((key) => open.get(key)?.then((u) => u.terminate()).catch(() => undefined)));
  for (const key of keys) open.delete(key);
}
