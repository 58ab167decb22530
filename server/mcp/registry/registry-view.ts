// A registered MCP server as the registry's callers see it (the CLI, tRPC, the dashboard): where it
// is, how the gateway authenticates to it (the kind and header names only: the sealed values never
// leave the store), what it costs, whether it answered when last listed, and what it offers under
// the names /mcp gives them. Also the lookups that decide which servers a workspace may see and
// which it may change.
import type { McpServer } from "../../generated/prisma/client";
import type { Db, Tx } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { GLOBAL_SCOPE, qualifiedName, toolPrice, type McpTransport, type ServerAuth, type ServerCatalog } from "../server-def";
import { entryOf } from "./registry-cache";

export type McpServerView = {
  object: "mcp_server";
  id: string;
  name: string;
  /** "global": the operator's, offered to every workspace (changed only with the CLI's --global). */
  scope: "workspace" | "global";
  url: string;
  transport: McpTransport;
  description: string | null;
  auth: { kind: ServerAuth["kind"]; header_names?: string[] };
  /** USD per call of a tool without its own price; null: free. */
  price_per_call: string | null;
  tool_prices: Record<string, string>;
  status: "up" | "down" | "unknown";
  last_error: string | null;
  tools: { name: string; qualified_name: string; description: string | null; price_per_call: string | null }[];
  prompts: { name: string; qualified_name: string; description: string | null }[];
  resources: { uri: string; name: string; description: string | null; mime_type: string | null }[];
  /** When its tools were last listed (seconds), null: never. */
  checked_at: number | null;
  created_at: number;
};

export type ServerRow = McpServer;

export const scopeOf = (workspaceId: string | null) => workspaceId ?? GLOBAL_SCOPE;
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

export const catalogOf = (row: Pick<ServerRow, "catalog">): ServerCatalog | null => (row.catalog as ServerCatalog | null) ?? null;
export const toolPricesOf = (row: Pick<ServerRow, "toolPrices">): Record<string, string> => (row.toolPrices ?? {}) as Record<string, string>;

export function viewOf(row: ServerRow): McpServerView {
  const entry = entryOf(row);
  const catalog = entry.catalog ?? { tools: [], prompts: [], resources: [] };
  return {
    object: "mcp_server",
    id: row.id,
    name: row.name,
    scope: row.scope === GLOBAL_SCOPE ? "global" : "workspace",
    url: row.url,
    transport: entry.transport,
    description: row.description,
    auth: entry.auth.kind === "header" ? { kind: "header", header_names: Object.keys(entry.auth.headers) } : { kind: entry.auth.kind },
    price_per_call: entry.pricePerCall,
    tool_prices: { ...entry.toolPrices },
    status: row.status === "up" || row.status === "down" ? row.status : "unknown",
    last_error: row.lastError,
    tools: catalog.tools.map((t) => ({ name: t.name, qualified_name: qualifiedName(row.name, t.name), description: t.description ?? null, price_per_call: toolPrice(entry, t.name) })),
    prompts: catalog.prompts.map((p) => ({ name: p.name, qualified_name: qualifiedName(row.name, p.name), description: p.description ?? null })),
    resources: catalog.resources.map((r) => ({ uri: r.uri, name: r.name, description: r.description ?? null, mime_type: r.mimeType ?? null })),
    checked_at: row.catalogAt ? seconds(row.catalogAt) : null,
    created_at: seconds(row.createdAt),
  };
}

const byNameOrId = (nameOrId: string) => ({ OR: [{ name: nameOrId }, { id: nameOrId }] });

/**
 * The server a workspace means (its own, or the operator's); null workspace: the operator's only.
 * Another workspace's server is a 404 like one that does not exist: its name is not told.
 */
export async function visibleServer(tx: Tx | Db, workspaceId: string | null, nameOrId: string): Promise<ServerRow> {
  const scopes = workspaceId ? [workspaceId, GLOBAL_SCOPE] : [GLOBAL_SCOPE];
  const rows = await tx.mcpServer.findMany({ where: { scope: { in: scopes }, ...byNameOrId(nameOrId) } });
  const row = rows.find((r) => r.scope !== GLOBAL_SCOPE) ?? rows[0];
  if (!row) throw errors.notFound(`No MCP server named \`${nameOrId}\`.`, "mcp_server_not_found", "server");
  return row;
}

/**
 * The server a workspace (null: the operator) may change: its own. The operator's servers are
 * offered to every workspace, so a workspace sees them but changing one would change it for all:
 * that is a 403 saying whose it is.
 */
export async function ownServer(tx: Tx | Db, workspaceId: string | null, nameOrId: string): Promise<ServerRow> {
  const row = await visibleServer(tx, workspaceId, nameOrId);
  if (row.scope !== scopeOf(workspaceId)) {
    throw errors.permissionDenied(`The MCP server \`${row.name}\` is the gateway operator's, offered to every workspace; only the operator changes or removes it (npm run cli -- mcp ... --global).`);
  }
  return row;
}
