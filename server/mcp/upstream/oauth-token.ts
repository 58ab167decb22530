// An access token for a server registered with OAuth client credentials (RFC 6749 section 4.4):
// fetched from its token URL through the outbound guard, kept until a minute before it expires.
import { guardedFetch } from "../../infra/net/outbound-guard";
import { GatewayError } from "../../kernel/errors";
import type { ServerAuth } from "../server-def";

type OAuth = Extract<ServerAuth, { kind: "oauth" }>;
type Held = { token: string; until: number };

const held = new Map<string, Promise<Held>>();
const MARGIN_MS = 60_000;

async function fetchToken(auth: OAuth): Promise<Held> {
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (auth.scope) form.set("scope", auth.scope);
  const basic = Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`).toString("base64");
  const res = await guardedFetch(auth.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: `Basic ${basic}` },
    body: form.toString(),
  });
  const body = (await res.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
  if (!res.ok || typeof body?.access_token !== "string") {
    throw new GatewayError({ status: 502, code: "mcp_server_auth_failed", message: `The MCP server's token endpoint refused the gateway's client credentials (HTTP ${res.status}).` });
  }
  const seconds = typeof body.expires_in === "number" ? body.expires_in : 3600;
  return { token: body.access_token, until: Date.now() + seconds * 1000 - MARGIN_MS };
}

/** A current access token for `auth`, shared by every call of this process. */
export async function accessToken(serverId: string, auth: OAuth): Promise<string> {
  const key = `${serverId}|${auth.tokenUrl}|${auth.clientId}`;
  const pending = held.get(key);
  if (pending) {
    const got = await pending.catch(() => null);
    if (got && got.until > Date.now()) return got.token;
    if (held.get(key) !== pending) return accessToken(serverId, auth);
  }
  const next = fetchToken(auth);
  held.set(key, next);
  next.catch(() => held.get(key) === next && held.delete(key));
  return (await next).token;
}

/** Forgets a token the server refused (401), so that the next call fetches another. */
export function dropToken(serverId: string): void {
  for (const key of held.keys()) if (key.startsWith(`${serverId}|`)) held.delete(key);
}
