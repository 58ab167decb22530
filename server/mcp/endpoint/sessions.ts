// /mcp sessions, kept in PostgreSQL so that any instance serves any session, also after a
// restart of the one that opened it: who opened it (only that credential may use it), the protocol
// version agreed, and the server sessions opened for it (upstream/upstream-pool.ts resumes them).
// Each instance holds the sessions it served in memory; an ended session is notified, and every
// instance forgets it at once. A session unused for MCP_SESSION_IDLE_SECONDS has ended.
import { boundedLru } from "../../infra/cache/bounded-lru";
import { db } from "../../infra/db/client";
import { Channel, listen, notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { newId } from "../../kernel/ids";
import type { Principal } from "../../identity/principal";
import type { UpstreamSession } from "../upstream/connect";
import type { SessionStore } from "../upstream/upstream-pool";

export type McpSessionRow = { id: string; workspaceId: string; owner: string; protocolVersion: string; upstream: Record<string, UpstreamSession>; lastUsedAt: number };

/** Who holds a session: the credential, not the person (a key, a session token's session or subject, an x402 wallet, a dashboard user). */
export function ownerOf(p: Principal): string {
  switch (p.kind) {
    case "api_key":
      return `key:${p.keyId}`;
    case "session":
      return p.sessionId ? `session:${p.sessionId}` : `subject:${p.planId}:${p.subject}`;
    case "user":
      return `user:${p.userId}`;
    case "x402":
      return `x402:${p.workspaceId}`;
  }
}

/** How often a session's last use is written at most (the idle limit is far longer). */
const TOUCH_EVERY_MS = 60_000;
const held = boundedLru<string, McpSessionRow>(50_000);
let listening: Promise<void> | undefined;

function subscribe(): void {
  listening ??= listen(Channel.mcpSessionEnded, (id) => void held.delete(id)).catch(() => {
    listening = undefined;
  });
}

const idle = (row: McpSessionRow) => Date.now() - row.lastUsedAt > env.MCP_SESSION_IDLE_SECONDS * 1000;

export async function openSession(p: Principal, protocolVersion: string, clientInfo: unknown): Promise<McpSessionRow> {
  subscribe();
  const row: McpSessionRow = { id: newId("mcpsess", 32), workspaceId: p.workspaceId, owner: ownerOf(p), protocolVersion, upstream: {}, lastUsedAt: Date.now() };
  await db.mcpSession.create({ data: { id: row.id, workspaceId: row.workspaceId, owner: row.owner, protocolVersion, clientInfo: (clientInfo ?? undefined) as object | undefined } });
  held.set(row.id, row);
  return row;
}

async function read(id: string): Promise<McpSessionRow | null> {
  const r = await db.mcpSession.findUnique({ where: { id } });
  if (!r) return null;
  return { id: r.id, workspaceId: r.workspaceId, owner: r.owner, protocolVersion: r.protocolVersion, upstream: (r.upstream ?? {}) as Record<string, UpstreamSession>, lastUsedAt: r.lastUsedAt.getTime() };
}

/** The session `id` if it exists, is `p`'s and has not ended; null otherwise (the client starts another). */
export async function sessionFor(id: string, p: Principal): Promise<McpSessionRow | null> {
  subscribe();
  let row = held.get(id) ?? null;
  if (!row) {
    row = await read(id);
    if (row) held.set(id, row);
  }
  if (!row || row.owner !== ownerOf(p) || row.workspaceId !== p.workspaceId) return null;
  if (idle(row)) {
    await endSession(row.id);
    return null;
  }
  if (Date.now() - row.lastUsedAt > TOUCH_EVERY_MS) {
    row.lastUsedAt = Date.now();
    void db.mcpSession.update({ where: { id }, data: { lastUsedAt: new Date(row.lastUsedAt) } }).catch(() => undefined);
  }
  return row;
}

/** Ends a session on every instance (DELETE /mcp, or idle). */
export async function endSession(id: string): Promise<void> {
  held.delete(id);
  await db.$transaction(async (tx) => {
    await tx.mcpSession.deleteMany({ where: { id } });
    await notify(tx, Channel.mcpSessionEnded, id);
  });
}

/** The session's server sessions, as the upstream pool keeps them: in its row, shared by every instance. */
export function upstreamStore(row: McpSessionRow): SessionStore {
  return {
    async get(serverId) {
      if (row.upstream[serverId]) return row.upstream[serverId];
      const fresh = await read(row.id);
      if (fresh) row.upstream = fresh.upstream;
      return row.upstream[serverId] ?? null;
    },
    async remember(serverId, session) {
      // Set only if no instance has set one meanwhile; the row's value is returned either way.
      const rows = await db.$queryRaw<{ upstream: Record<string, UpstreamSession> }[]>`
        UPDATE "McpSession"
        SET upstream = CASE WHEN upstream ? ${serverId} THEN upstream ELSE jsonb_set(upstream, ARRAY[${serverId}], ${JSON.stringify(session)}::jsonb) END
        WHERE id = ${row.id}
        RETURNING upstream`;
      if (rows[0]) row.upstream = rows[0].upstream;
      return row.upstream[serverId] ?? session;
    },
    async forget(serverId, sessionId) {
      // Only the session the server forgot: one another instance opened since stays.
      if (row.upstream[serverId]?.sessionId === sessionId) delete row.upstream[serverId];
      await db.$executeRaw`UPDATE "McpSession" SET upstream = upstream - ${serverId} WHERE id = ${row.id} AND upstream -> ${serverId} ->> 'sessionId' = ${sessionId}`;
    },
  };
}

/** Removes sessions idle past their life (run with the gateway's other maintenance). */
export async function sweepIdleSessions(): Promise<number> {
  const before = new Date(Date.now() - env.MCP_SESSION_IDLE_SECONDS * 1000);
  return (await db.mcpSession.deleteMany({ where: { lastUsedAt: { lt: before } } })).count;
}
