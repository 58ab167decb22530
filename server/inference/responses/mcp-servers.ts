// The servers of a request's `mcp` tools, decided before the call is admitted (a refusal is a 400
// that costs nothing), and their tools. A label the workspace registered (its own servers and the
// operator's) needs no URL and is called with the registered credentials; any other label names
// its server by `server_url`, allowed only when the workspace permits ad-hoc servers, and only
// where the outbound guard lets the gateway go. The tools the model is offered are the server's,
// within `allowed_tools` and within the caller's tool list (checked as `<label>__<tool>`, as /mcp).
import { createHash } from "node:crypto";
import type { Principal } from "../../identity/principal";
import { assertOutboundUrlAllowed } from "../../infra/net/outbound-policy";
import { logFor } from "../../infra/telemetry/log";
import { errors, GatewayError } from "../../kernel/errors";
import { toolFilterFor, toolsRestricted } from "../../mcp/calls/tool-access";
import { serverNamed } from "../../mcp/registry/registry-cache";
import { mcpSettings } from "../../mcp/registry/registry-health";
import { qualifiedName, type ListedTool, type McpServerEntry } from "../../mcp/server-def";
import { discoverServer } from "../../mcp/upstream/discover";
import type { Item } from "./items";
import { mcpItemId, type McpListedTool, type McpListToolsItem } from "./mcp-items";
import { allowedByTool } from "./mcp-policy";
import type { McpTool } from "./mcp-schema";
import type { ResponseCreate } from "./schema";

const log = logFor("responses");

/** One `mcp` tool of the request: where it is in `tools`, its settings and its server. */
export type McpServerUse = { index: number; spec: McpTool; entry: McpServerEntry };
/** ...with the tools the model is offered, and the `mcp_list_tools` item to add (null: one in the context is used). */
export type ListedServer = McpServerUse & { tools: McpListedTool[]; list: McpListToolsItem | null };

const notAllowed = (message: string, param: string) => errors.invalidRequest(message, param, "mcp_server_not_allowed");

/** A server named by URL: its id is the URL's and credentials' hash (connections are never shared across credentials). */
function adhocEntry(workspaceId: string, spec: McpTool): McpServerEntry {
  const url = spec.server_url!;
  const headers = { ...(spec.headers ?? {}), ...(spec.authorization && { Authorization: `Bearer ${spec.authorization}` }) };
  const sorted = Object.entries(headers).sort(([a], [b]) => a.localeCompare(b));
  const id = `adhoc:${createHash("sha256").update(JSON.stringify([url, sorted])).digest("hex").slice(0, 20)}`;
  // An HTTP+SSE server is known by its /sse endpoint; anything else speaks Streamable HTTP.
  const transport = new URL(url).pathname.replace(/\/$/, "").endsWith("/sse") ? "sse" : "streamable_http";
  const auth = sorted.length ? { kind: "header" as const, headers } : { kind: "none" as const };
  return { id, scope: workspaceId, name: spec.server_label, url, transport, auth, pricePerCall: null, toolPrices: {}, catalog: null };
}

/** The servers of the request's `mcp` tools; a 400 naming the tool's field when one may not be used. */
export async function resolveServers(principal: Principal, req: ResponseCreate): Promise<McpServerUse[]> {
  const workspaceId = principal.workspaceId;
  const uses: McpServerUse[] = [];
  let adhoc: boolean | undefined;
  for (const [index, tool] of (req.tools ?? []).entries()) {
    if (tool.type !== "mcp") continue;
    const at = `tools[${index}]`;
    if (tool.connector_id) throw errors.invalidRequest("Connectors are not available here; name an MCP server by `server_label` (and `server_url`).", `${at}.connector_id`, "unsupported_parameter");
    if (uses.some((u) => u.spec.server_label === tool.server_label)) throw errors.invalidRequest(`Two \`mcp\` tools are labelled \`${tool.server_label}\`; labels must differ.`, `${at}.server_label`);
    const registered = await serverNamed(workspaceId, tool.server_label);
    if (registered) {
      // A registered label means that server: another URL under its name would be checked against its tool permissions.
      if (tool.server_url && tool.server_url.replace(/\/$/, "") !== registered.url.replace(/\/$/, "")) {
        throw notAllowed(`\`${tool.server_label}\` is a server registered at another URL; leave \`server_url\` out to use it, or choose another label.`, `${at}.server_url`);
      }
      uses.push({ index, spec: tool, entry: registered });
      continue;
    }
    if (!tool.server_url) {
      throw errors.invalidRequest(`No MCP server \`${tool.server_label}\` is registered for this workspace: register it (mcp add), or give its \`server_url\`.`, `${at}.server_label`, "mcp_server_not_found");
    }
    if (await toolsRestricted(principal)) {
      throw notAllowed(`This credential may use some tools only, of registered servers: \`${tool.server_label}\` is not one (a server named by URL could take any label).`, `${at}.server_url`);
    }
    adhoc ??= (await mcpSettings(workspaceId)).adhoc_servers;
    if (!adhoc) {
      throw notAllowed(`This workspace does not allow MCP servers named by URL: register \`${tool.server_label}\` (mcp add), or turn ad-hoc servers on (mcp adhoc).`, `${at}.server_url`);
    }
    assertOutboundUrlAllowed(tool.server_url, `${at}.server_url`);
    uses.push({ index, spec: tool, entry: adhocEntry(workspaceId, tool) });
  }
  return uses;
}

const listed = (t: ListedTool): McpListedTool => ({ name: t.name, description: t.description ?? null, input_schema: t.inputSchema ?? { type: "object" }, annotations: t.annotations ?? null });

/** Why a server's tools could not be listed, for the `mcp_list_tools` item's `error`. */
function listFailure(label: string, err: unknown): string {
  if (err instanceof GatewayError) return err.message;
  log.error({ err, server: label }, "listing an MCP server's tools failed");
  return `The tools of the MCP server \`${label}\` could not be listed.`;
}

/**
 * Each server's tools: those of an `mcp_list_tools` item already in the conversation (as OpenAI,
 * not listed again), else the registry's catalog, else the server's answer. A server that cannot
 * be listed gets an item with its error and offers no tools; the response goes on without them.
 */
export async function listServers(principal: Principal, uses: McpServerUse[], context: readonly Item[]): Promise<ListedServer[]> {
  const permitted = await toolFilterFor(principal);
  return Promise.all(
    uses.map(async (use): Promise<ListedServer> => {
      const offered = (tools: McpListedTool[]) => tools.filter((t) => allowedByTool(use.spec, t) && permitted(qualifiedName(use.entry.name, t.name)));
      const known = context.findLast((i): i is McpListToolsItem => i.type === "mcp_list_tools" && i.server_label === use.spec.server_label && !i.error);
      if (known) return { ...use, tools: offered(known.tools), list: null };
      try {
        const catalog = use.entry.catalog ?? (await discoverServer(use.entry));
        const tools = offered(catalog.tools.map(listed));
        return { ...use, tools, list: { id: mcpItemId("mcpl"), type: "mcp_list_tools", server_label: use.spec.server_label, tools, error: null } };
      } catch (err) {
        const error = listFailure(use.spec.server_label, err);
        return { ...use, tools: [], list: { id: mcpItemId("mcpl"), type: "mcp_list_tools", server_label: use.spec.server_label, tools: [], error } };
      }
    }),
  );
}
