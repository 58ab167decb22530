// What the registered servers offer and whether they answer: listed when a server is added, and
// again when a listing asks for a refresh. A server that does not answer keeps what it offered when
// last listed (its tools stay priced and named) and is marked down with the reason.
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { GLOBAL_SCOPE, type McpServerEntry } from "../server-def";
import { discoverServer } from "../upstream/discover";
import { entryOf } from "./registry-cache";
import { viewOf, visibleServer, type McpServerView, type ServerRow } from "./registry-view";

/** The longest reason kept for a server being down. */
const MAX_ERROR = 1000;

/** The columns a listing sets: the catalog and `up`, or `down` and why (the catalog kept as it was). */
export async function listCatalog(server: McpServerEntry) {
  try {
    const catalog = await discoverServer(server);
    return { catalog: catalog as object, catalogAt: new Date(), status: "up", lastError: null };
  } catch (err) {
    return { status: "down", lastError: (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR) };
  }
}

/** Lists each server again and stores what it offers and whether it answered; every instance is told. */
async function refresh(rows: ServerRow[]): Promise<void> {
  await Promise.all(rows.map(async (row) => db.mcpServer.updateMany({ where: { id: row.id }, data: await listCatalog(entryOf(row)) })));
  for (const scope of new Set(rows.map((r) => r.scope))) await notify(db, Channel.mcpServersChanged, scope);
}

const scopesFor = (workspaceId: string | null) => (workspaceId ? [workspaceId, GLOBAL_SCOPE] : [GLOBAL_SCOPE]);

/**
 * The servers a workspace has (its own and the operator's; null: the operator's), by name; with
 * `refresh`, each is listed again first (a server down is reported so, not an error).
 */
export async function listServers(workspaceId: string | null, opts: { refresh?: boolean } = {}): Promise<McpServerView[]> {
  const find = () => db.mcpServer.findMany({ where: { scope: { in: scopesFor(workspaceId) } }, orderBy: [{ name: "asc" }, { scope: "asc" }] });
  if (opts.refresh) await refresh(await find());
  return (await find()).map(viewOf);
}

/** One server a workspace has, by name or id (listed again first with `refresh`); 404 otherwise. */
export async function showServer(workspaceId: string | null, nameOrId: string, opts: { refresh?: boolean } = {}): Promise<McpServerView> {
  const row = await visibleServer(db, workspaceId, nameOrId);
  if (opts.refresh) await refresh([row]);
  return viewOf(await db.mcpServer.findUniqueOrThrow({ where: { id: row.id } }));
}

/** Whether the workspace's callers may name servers that are not registered. */
export async function mcpSettings(workspaceId: string): Promise<{ object: "mcp_settings"; adhoc_servers: boolean }> {
  const ws = await db.workspace.findUnique({ where: { id: workspaceId }, select: { mcpAdhocServers: true } });
  if (!ws) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
  return { object: "mcp_settings", adhoc_servers: ws.mcpAdhocServers };
}
