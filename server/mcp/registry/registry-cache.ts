// The MCP servers a workspace has, as every /mcp call reads them: the workspace's own and the
// operator's, credentials opened, from memory. A change (registry-store.ts) is notified on
// Channel.mcpServersChanged, and every instance reads the workspace's (or, for the operator's,
// every workspace's) servers again on its next call; entries are also never older than
// KEY_CACHE_MAX_AGE_MS.
import { db } from "../../infra/db/client";
import { Channel, FreshCache } from "../../infra/cache/fresh-cache";
import { env } from "../../infra/env";
import { open } from "../../infra/secret-box";
import { logFor } from "../../infra/telemetry/log";
import { GLOBAL_SCOPE, ZServerAuth, type McpServerEntry, type McpTransport, type ServerAuth, type ServerCatalog } from "../server-def";

const log = logFor("mcp");

type Row = {
  id: string;
  scope: string;
  name: string;
  url: string;
  transport: string;
  authKind: string;
  authSealed: string | null;
  pricePerCall: { toFixed(): string } | null;
  toolPrices: unknown;
  catalog: unknown;
  updatedAt: Date;
};

function authOf(row: Row): ServerAuth {
  if (!row.authSealed) return { kind: "none" };
  try {
    return ZServerAuth.parse(JSON.parse(open(row.authSealed)));
  } catch (err) {
    // A credential this instance cannot open (another secret): the server is called without it and refuses.
    log.error({ err, server: row.id }, "an MCP server's credentials could not be opened");
    return { kind: "none" };
  }
}

const decimal = (d: { toFixed(): string } | null) => (d ? d.toFixed().replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "") : null);

export function entryOf(row: Row): McpServerEntry {
  const prices = row.toolPrices && typeof row.toolPrices === "object" ? (row.toolPrices as Record<string, string>) : {};
  return {
    id: row.id,
    scope: row.scope,
    name: row.name,
    url: row.url,
    transport: row.transport as McpTransport,
    auth: authOf(row),
    pricePerCall: decimal(row.pricePerCall),
    toolPrices: prices,
    catalog: (row.catalog as ServerCatalog | null) ?? null,
    revision: String(row.updatedAt.getTime()),
  };
}

async function load(workspaceId: string): Promise<McpServerEntry[]> {
  const rows = await db.mcpServer.findMany({ where: { scope: { in: [workspaceId, GLOBAL_SCOPE] } }, orderBy: { name: "asc" } });
  return rows.map(entryOf);
}

const cache = new FreshCache<McpServerEntry[]>({
  name: "mcp servers",
  load,
  channel: Channel.mcpServersChanged,
  maxAgeMs: env.KEY_CACHE_MAX_AGE_MS,
  refreshMs: env.KEY_CACHE_REFRESH_MS,
});

/** The servers `workspaceId` has (its own and the operator's), by name. */
export function serversFor(workspaceId: string): Promise<McpServerEntry[]> {
  return cache.get(workspaceId);
}

/** One of them by name, or undefined. */
export async function serverNamed(workspaceId: string, name: string): Promise<McpServerEntry | undefined> {
  return (await serversFor(workspaceId)).find((s) => s.name === name);
}
