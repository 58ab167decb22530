// What an MCP server registered with the gateway is: its name (the prefix of its tools' names at
// /mcp, `<name>__<tool>`), its URL and transport, how the gateway authenticates to it, and what
// its tools cost. Shared by the registry (registry/), the upstream client (upstream/), /mcp
// (endpoint/) and the responses API's `mcp` tool.
import { z } from "zod";

/** A server's name: lower-case letters, digits, `-` and `_` (no `__`, which separates the server from the tool). */
export const SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;
/** The separator between a server's name and its tool's in the names /mcp offers. */
export const TOOL_SEPARATOR = "__";
/** Scope of the operator's servers, which every workspace has. */
export const GLOBAL_SCOPE = "*";

export const MCP_TRANSPORTS = ["streamable_http", "sse"] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** A price in USD as a decimal string (exact; never a float). */
export const ZUsd = z
  .string()
  .trim()
  .regex(/^\d{1,12}(\.\d{1,18})?$/, "a price in USD such as 0.002 (at most 18 decimal places)");

/** How the gateway authenticates to a server; sealed at rest. */
export const ZServerAuth = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("none") }),
  z.object({ kind: z.literal("header"), headers: z.record(z.string().min(1).max(200), z.string().max(8192)) }),
  z.object({
    kind: z.literal("oauth"),
    tokenUrl: z.url(),
    clientId: z.string().min(1).max(500),
    clientSecret: z.string().min(1).max(2000),
    scope: z.string().max(1000).optional(),
  }),
]);
export type ServerAuth = z.infer<typeof ZServerAuth>;

/** What `mcp add` and the dashboard's form give. */
export const ZServerInput = z.object({
  name: z.string().trim().min(1).max(48).regex(SERVER_NAME, "lower-case letters, digits, - and _ (not __), starting with a letter or digit"),
  url: z.url().max(2000),
  transport: z.enum(MCP_TRANSPORTS).default("streamable_http"),
  auth: ZServerAuth.default({ kind: "none" }),
  price_per_call: ZUsd.nullable().optional(),
  description: z.string().trim().max(500).optional(),
});
export type ServerInput = z.infer<typeof ZServerInput>;

/** A tool, prompt or resource as the server listed it. */
export type ListedTool = { name: string; title?: string; description?: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown>; annotations?: Record<string, unknown> };
export type ListedPrompt = { name: string; title?: string; description?: string; arguments?: { name: string; description?: string; required?: boolean }[] };
export type ListedResource = { uri: string; name: string; title?: string; description?: string; mimeType?: string };
export type ServerCatalog = { tools: ListedTool[]; prompts: ListedPrompt[]; resources: ListedResource[] };

/** A registered server as the gateway holds it in memory (registry/registry-cache.ts): auth opened. */
export type McpServerEntry = {
  id: string;
  /** A workspace id, or "*" for the operator's. */
  scope: string;
  name: string;
  url: string;
  transport: McpTransport;
  auth: ServerAuth;
  /** USD per call of a tool without its own price; null: free. */
  pricePerCall: string | null;
  toolPrices: Readonly<Record<string, string>>;
  catalog: ServerCatalog | null;
  /** Changes whenever the server's URL, transport or credentials do: connections opened before are not used after. */
  revision?: string;
};

/** The price of one call of `tool` (a decimal string), or null when it is free. */
export function toolPrice(server: Pick<McpServerEntry, "pricePerCall" | "toolPrices">, tool: string): string | null {
  const own = Object.hasOwn(server.toolPrices, tool) ? server.toolPrices[tool]! : server.pricePerCall;
  return own && !/^0*(\.0*)?$/.test(own) ? own : null;
}

/** The name /mcp offers a server's tool (or prompt) under. */
export const qualifiedName = (server: string, tool: string) => `${server}${TOOL_SEPARATOR}${tool}`;

/** `<server>__<tool>` split at its first separator; null when it has none. */
export function splitQualified(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at <= 0 || at + TOOL_SEPARATOR.length >= name.length) return null;
  return { server: name.slice(0, at), tool: name.slice(at + TOOL_SEPARATOR.length) };
}
