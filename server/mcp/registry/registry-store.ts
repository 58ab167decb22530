// Registering, pricing and removing MCP servers: a workspace's own, and the operator's (scope "*",
// offered to every workspace, changed only by the operator). A server is checked whole before it is
// saved (its fields, its URLs under the outbound policy, its name free in both scopes), its auth
// sealed, and its tools listed once: a server that does not answer is still registered, marked
// down with the reason, and listed again on the next refresh. Every change is audited and notified:
// every instance drops its copy of the scope's servers (registry-cache.ts) and reads them again.
import type { AuditActor } from "../../audit/actor";
import { diff, recordAudit } from "../../audit/record";
import { db, type Tx } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { assertOutboundUrlAllowed } from "../../infra/net/outbound-policy";
import { open, seal } from "../../infra/secret-box";
import { errors, GatewayError } from "../../kernel/errors";
import { randomBase62 } from "../../kernel/ids";
import { formatMoney } from "../../kernel/money";
import { hasIssues, validationError } from "../../kernel/validation-error";
import { GLOBAL_SCOPE, ZServerInput, ZUsd, type ServerInput } from "../server-def";
import { listCatalog } from "./registry-health";
import { catalogOf, ownServer, scopeOf, toolPricesOf, viewOf, type McpServerView, type ServerRow } from "./registry-view";

/** What the audit log compares: the auth as its sealed plaintext, shown only as "[secret]". */
type Audited = { url: string; transport: string; auth_kind: string; auth: string | null; price_per_call: string | null; description: string | null };
const AUDITED = ["url", "transport", "auth_kind", "price_per_call", "description"] as const;

function audited(row: ServerRow | null): Audited | null {
  if (!row) return null;
  return { url: row.url, transport: row.transport, auth_kind: row.authKind, auth: row.authSealed && open(row.authSealed), price_per_call: row.pricePerCall === null ? null : formatMoney(row.pricePerCall), description: row.description };
}

function parse<T>(schema: { parse: (v: unknown) => T }, input: unknown): T {
  try {
    return schema.parse(input);
  } catch (err) {
    throw hasIssues(err) ? validationError(err.issues) : err;
  }
}

/** Tells every instance that the scope's servers changed ("*": every workspace's). */
const changed = (tx: Tx, workspaceId: string | null) => notify(tx, Channel.mcpServersChanged, scopeOf(workspaceId));

/**
 * One name means one server to a workspace: /mcp offers its tools as `<name>__<tool>`, so a
 * workspace's server may not take an operator's server's name, nor the operator a name some
 * workspace already uses (its callers' tool names would change meaning under them).
 */
async function assertNameFree(workspaceId: string | null, name: string): Promise<void> {
  const clash = await db.mcpServer.findFirst({ where: { name, scope: workspaceId ? GLOBAL_SCOPE : { not: GLOBAL_SCOPE } }, select: { id: true } });
  if (!clash) return;
  const message = workspaceId
    ? `The gateway operator already offers an MCP server named \`${name}\` to every workspace; choose another name.`
    : `A workspace already has an MCP server named \`${name}\`; a gateway-wide server of that name would take its tools' names. Choose another name.`;
  throw new GatewayError({ status: 409, code: "mcp_server_name_taken", param: "name", message });
}

/**
 * Registers an MCP server in the workspace (null: the operator's, for every workspace), or replaces
 * the one of that name (its tool prices kept; a price or description not given is kept too).
 */
export async function addServer(actor: AuditActor | undefined, workspaceId: string | null, input: unknown): Promise<McpServerView> {
  const def: ServerInput = parse(ZServerInput, input);
  assertOutboundUrlAllowed(def.url, "url");
  if (def.auth.kind === "oauth") assertOutboundUrlAllowed(def.auth.tokenUrl, "auth.tokenUrl");
  await assertNameFree(workspaceId, def.name);
  const scope = scopeOf(workspaceId);
  const existing = await db.mcpServer.findUnique({ where: { scope_name: { scope, name: def.name } }, select: { id: true, toolPrices: true } });
  const id = existing?.id ?? `mcps_${randomBase62(24)}`;
  const kind = def.auth.kind;
  // Listed before the transaction (a network call), with the auth as given.
  const listed = await listCatalog({ id, scope, name: def.name, url: def.url, transport: def.transport, auth: def.auth, pricePerCall: def.price_per_call ?? null, toolPrices: toolPricesOf({ toolPrices: existing?.toolPrices ?? {} }), catalog: null });
  const data = {
    url: def.url,
    transport: def.transport,
    authKind: kind,
    authSealed: kind === "none" ? null : seal(JSON.stringify(def.auth)),
    ...(def.price_per_call !== undefined ? { pricePerCall: def.price_per_call } : {}),
    ...(def.description !== undefined ? { description: def.description || null } : {}),
    ...listed,
  };
  const row = await db.$transaction(async (tx) => {
    const before = await tx.mcpServer.findUnique({ where: { scope_name: { scope, name: def.name } } });
    const saved = await tx.mcpServer.upsert({ where: { scope_name: { scope, name: def.name } }, create: { id, scope, name: def.name, ...data }, update: data });
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: before ? "mcp_server.update" : "mcp_server.add",
      target: { type: "mcp_server", id: saved.id },
      changes: { ...(before ? {} : { name: { from: null, to: def.name } }), ...diff<Audited>(audited(before), audited(saved), AUDITED, ["auth"]) },
    });
    await changed(tx, workspaceId);
    return saved;
  });
  return viewOf(row);
}

/** Removes a server of the workspace (null: the operator's); 404 when it has none of that name, 403 for the operator's. */
export async function removeServer(actor: AuditActor | undefined, workspaceId: string | null, nameOrId: string): Promise<{ object: "mcp_server"; id: string; name: string; deleted: true }> {
  return db.$transaction(async (tx) => {
    const row = await ownServer(tx, workspaceId, nameOrId);
    await tx.mcpServer.delete({ where: { id: row.id } });
    await recordAudit(tx, { workspaceId, actor, action: "mcp_server.remove", target: { type: "mcp_server", id: row.id }, changes: { name: { from: row.name, to: null }, ...diff<Audited>(audited(row), null, AUDITED, ["auth"]) } });
    await changed(tx, workspaceId);
    return { object: "mcp_server" as const, id: row.id, name: row.name, deleted: true as const };
  });
}

/**
 * Sets the price per call of one of a server's tools (null: the tool costs the server's price per
 * call again). The tool must be one the server listed, unless it has never been listed.
 */
export async function setToolPrice(actor: AuditActor | undefined, workspaceId: string | null, server: string, tool: string, usd: string | null): Promise<McpServerView> {
  const price = usd === null ? null : parse(ZUsd, usd);
  const row = await db.$transaction(async (tx) => {
    const row = await ownServer(tx, workspaceId, server);
    const catalog = catalogOf(row);
    if (catalog && !catalog.tools.some((t) => t.name === tool)) {
      const names = catalog.tools.map((t) => t.name).join(", ") || "none";
      throw errors.notFound(`The MCP server \`${row.name}\` has no tool \`${tool}\` (its tools: ${names}).`, "mcp_tool_not_found", "tool");
    }
    const prices = toolPricesOf(row);
    const before = prices[tool] ?? null;
    if (before === price) return row;
    const { [tool]: _dropped, ...rest } = prices;
    const saved = await tx.mcpServer.update({ where: { id: row.id }, data: { toolPrices: price === null ? rest : { ...rest, [tool]: price } } });
    await recordAudit(tx, { workspaceId, actor, action: "mcp_server.price", target: { type: "mcp_server", id: row.id }, changes: { [`tool_prices.${tool}`]: { from: before, to: price } } });
    await changed(tx, workspaceId);
    return saved;
  });
  return viewOf(row);
}

/**
 * Whether the workspace's callers may name servers that are not registered (the responses API's
 * `mcp` tool with a `server_url`): off by default, since the gateway then fetches URLs its callers
 * choose (still under the outbound policy).
 */
export async function setAdhocServers(actor: AuditActor | undefined, workspaceId: string, on: boolean): Promise<{ object: "mcp_settings"; adhoc_servers: boolean }> {
  await db.$transaction(async (tx) => {
    const ws = await tx.workspace.findUnique({ where: { id: workspaceId }, select: { mcpAdhocServers: true } });
    if (!ws) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
    if (ws.mcpAdhocServers === on) return;
    await tx.workspace.update({ where: { id: workspaceId }, data: { mcpAdhocServers: on } });
    await recordAudit(tx, { workspaceId, actor, action: "workspace.mcp_adhoc", target: { type: "workspace", id: workspaceId }, changes: { mcp_adhoc_servers: { from: ws.mcpAdhocServers, to: on } } });
    await changed(tx, workspaceId);
  });
  return { object: "mcp_settings", adhoc_servers: on };
}
