// MCP servers (docs/MCP.md): a workspace's own, or the operator's (--global), offered to every
// workspace; their tools, health and prices, and whether a workspace may use unregistered servers.
import { cliActor } from "../../server/audit/actor";
import { listServers, mcpSettings, showServer } from "../../server/mcp/registry/registry-health";
import { addServer, removeServer, setAdhocServers, setToolPrice } from "../../server/mcp/registry/registry-store";
import type { McpServerView } from "../../server/mcp/registry/registry-view";
import { parse, parseScoped as scoped, UsageError, type Command } from "./args";
import { requireWorkspace } from "./require-workspace";

const where = async (workspaceId: string | null) => {
  if (workspaceId) await requireWorkspace(workspaceId);
};

const price = (usd: string | null) => (usd ? `$${usd}/call` : "free");

function describe(s: McpServerView): string {
  const head = `${s.name}  ${s.url} (${s.transport})  ${s.status}${s.last_error ? `: ${s.last_error}` : ""}  ${price(s.price_per_call)}${s.scope === "global" ? "  (gateway-wide)" : ""}`;
  const tools = s.tools.map((t) => `    ${t.qualified_name}  ${price(t.price_per_call)}${t.description ? `  ${t.description}` : ""}`);
  return [head, ...(tools.length ? tools : [s.checked_at ? "    (no tools)" : "    (tools not listed yet)"])].join("\n");
}

/** `--header 'Name: value'` lines as a header map. */
function headers(lines: string[] | undefined): Record<string, string> | undefined {
  if (!lines?.length) return undefined;
  const out: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(":");
    if (at <= 0) throw new UsageError(`--header takes 'Name: value', not ${line}`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

type AddFlags = { header?: string[]; "oauth-token-url"?: string; "client-id"?: string; "client-secret"?: string; scope?: string };

function auth(v: AddFlags): unknown {
  const oauth = v["oauth-token-url"] ?? v["client-id"] ?? v["client-secret"];
  if (oauth !== undefined && v.header?.length) throw new UsageError("use --header or --oauth-token-url, not both");
  if (oauth !== undefined) return { kind: "oauth", tokenUrl: v["oauth-token-url"], clientId: v["client-id"], clientSecret: v["client-secret"], ...(v.scope ? { scope: v.scope } : {}) };
  const h = headers(v.header);
  return h ? { kind: "header", headers: h } : { kind: "none" };
}

const ADD_OPTIONS = {
  name: { type: "string" },
  url: { type: "string" },
  transport: { type: "string" },
  header: { type: "string", multiple: true },
  "oauth-token-url": { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  scope: { type: "string" },
  "price-per-call": { type: "string" },
  description: { type: "string" },
} as const;

export const mcpCommands: Record<string, Command> = {
  "mcp add": (argv) => {
    const { values: v, workspaceId } = scoped(argv, ADD_OPTIONS, []);
    const input = Object.fromEntries(
      Object.entries({ name: v.name, url: v.url, transport: v.transport, auth: auth(v), price_per_call: v["price-per-call"], description: v.description }).filter(([, value]) => value !== undefined),
    );
    return async () => {
      await where(workspaceId);
      const json = await addServer(cliActor(), workspaceId, input);
      const down = json.status === "down" ? "\nIt did not answer; it is registered and will be listed again on `mcp list --refresh`." : "";
      return { json, text: `MCP server ${describe(json)}${down}`, asJson: v.json };
    };
  },
  "mcp list": (argv) => {
    const { values, workspaceId } = scoped(argv, { refresh: { type: "boolean" } }, []);
    return async () => {
      await where(workspaceId);
      const data = await listServers(workspaceId, { refresh: values.refresh });
      const settings = workspaceId ? await mcpSettings(workspaceId) : null;
      const adhoc = settings ? `\nAd-hoc servers: ${settings.adhoc_servers ? "allowed" : "not allowed"}` : "";
      return { json: { object: "list", data, ...(settings ? { adhoc_servers: settings.adhoc_servers } : {}) }, text: `${data.length ? data.map(describe).join("\n") : "No MCP servers."}${adhoc}`, asJson: values.json };
    };
  },
  "mcp show": (argv) => {
    const { values, args, workspaceId } = scoped(argv, { refresh: { type: "boolean" } }, ["SERVER"]);
    return async () => {
      await where(workspaceId);
      const json = await showServer(workspaceId, args[0]!, { refresh: values.refresh });
      return { json, text: JSON.stringify(json, null, 2), asJson: values.json };
    };
  },
  "mcp remove": (argv) => {
    const { values, args, workspaceId } = scoped(argv, {}, ["SERVER"]);
    return async () => {
      await where(workspaceId);
      const json = await removeServer(cliActor(), workspaceId, args[0]!);
      return { json, text: `Removed MCP server ${json.name}.`, asJson: values.json };
    };
  },
  "mcp price": (argv) => {
    const { values, args, workspaceId } = scoped(argv, { "per-call": { type: "string" }, clear: { type: "boolean" } }, ["SERVER", "TOOL"]);
    if ((values["per-call"] === undefined) === !values.clear) throw new UsageError("mcp price needs --per-call USD or --clear");
    const usd = values.clear ? null : values["per-call"]!;
    return async () => {
      await where(workspaceId);
      const json = await setToolPrice(cliActor(), workspaceId, args[0]!, args[1]!, usd);
      const tool = json.tools.find((t) => t.name === args[1]);
      return { json, text: `${json.name}: ${args[1]} costs ${price(tool ? tool.price_per_call : (json.tool_prices[args[1]!] ?? json.price_per_call))}.`, asJson: values.json };
    };
  },
  "mcp adhoc": (argv) => {
    const { values, args } = parse(argv, {}, ["WORKSPACE_ID", "on|off"]);
    const [workspaceId, state] = args as [string, string];
    if (state !== "on" && state !== "off") throw new UsageError(`mcp adhoc takes on or off, not ${state}`);
    return async () => {
      await where(workspaceId);
      const json = await setAdhocServers(cliActor(), workspaceId, state === "on");
      return { json, text: `Ad-hoc MCP servers ${json.adhoc_servers ? "allowed" : "not allowed"} in ${workspaceId}.`, asJson: values.json };
    };
  },
};
