// The "Add server" form's values and the server they describe (what mcp.add takes; the server
// checks it whole and names the bad field), and how prices read on the page.
import type { MCP_TRANSPORTS } from "@/server/mcp/server-def";

export type AuthKind = "none" | "header" | "oauth";

export type ServerFormValues = {
  name: string;
  url: string;
  transport: (typeof MCP_TRANSPORTS)[number];
  authKind: AuthKind;
  /** `Name: value`, one a line. */
  headers: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  price: string;
  description: string;
};

export const NEW_SERVER: ServerFormValues = { name: "", url: "", transport: "streamable_http", authKind: "none", headers: "", tokenUrl: "", clientId: "", clientSecret: "", scope: "", price: "", description: "" };

function authOf(v: ServerFormValues): { auth: object } | { error: string } {
  if (v.authKind === "oauth") return { auth: { kind: "oauth", tokenUrl: v.tokenUrl.trim(), clientId: v.clientId.trim(), clientSecret: v.clientSecret, ...(v.scope.trim() ? { scope: v.scope.trim() } : {}) } };
  if (v.authKind === "none") return { auth: { kind: "none" } };
  const headers: Record<string, string> = {};
  for (const line of v.headers.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf(":");
    if (at <= 0) return { error: `Each header line is "Name: value"; "${line}" is not.` };
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (!Object.keys(headers).length) return { error: "Give at least one header line, or choose no authentication." };
  return { auth: { kind: "header", headers } };
}

/** The server mcp.add takes, or what is wrong with the form before asking. */
export function serverOf(v: ServerFormValues): { server: object } | { error: string } {
  const built = authOf(v);
  if ("error" in built) return built;
  return {
    server: {
      name: v.name.trim(),
      url: v.url.trim(),
      transport: v.transport,
      auth: built.auth,
      price_per_call: v.price.trim() ? v.price.trim() : null,
      ...(v.description.trim() ? { description: v.description.trim() } : {}),
    },
  };
}

export const perCall = (usd: string | null) => (usd ? `$${usd} per call` : "free");
