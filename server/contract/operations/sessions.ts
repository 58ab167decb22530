// Session tokens for an app's end users (docs/SESSIONS.md): minted and revoked with a workspace
// API key; the gateway's public signing keys for anyone to verify them.
import { keyActor } from "../../audit/actor";
import { z } from "zod";
import { ZMintedSession, ZMintSessionInput } from "../../identity/sessions/session-schemas";
import { revokeSession, revokeSubject } from "../../identity/sessions/manage-sessions";
import { ZSessionView } from "../../identity/sessions/session-view";
import type { Principal } from "../../identity/principal";
import type { Minter } from "../../identity/sessions/mint-rules";
import { can } from "../../identity/workspaces/permissions";
import { errors } from "../../kernel/errors";
import { operation } from "../operation";

/**
 * Sessions are managed with a workspace API key: a session token cannot mint or revoke others. A
 * signed-in member reaching these procedures through the dashboard's tRPC endpoint needs the
 * right to manage plans and sessions (owners and admins): a token is a credential that spends the
 * workspace's credits, which a `billing` or `member` role may not hand out.
 */
function keyOnly(p: Principal, what: string): Minter {
  if (p.kind === "session") throw errors.permissionDenied(`A session token cannot ${what}; use a workspace API key.`);
  if (p.kind === "user" && !can(p, "plans.manage")) throw errors.permissionDenied(`The ${p.customRole?.name ?? p.role} role cannot ${what}; owners and admins can.`);
  return p.kind === "api_key" ? { workspaceId: p.workspaceId, keyId: p.keyId, planId: p.planId, grant: p.grant ?? null } : { workspaceId: p.workspaceId, keyId: null, planId: null, grant: null };
}

const ONLY_KEYS = "A session token cannot manage sessions (`permission_denied`).";
const MINT_REFUSED =
  "A session token cannot mint (`permission_denied`); a key on a plan may mint only for that plan, and a key limited to some models only for a plan limited to those (`plan_not_allowed`).";

export const sessionsCreate = operation({
  id: "sessions.create",
  method: "POST",
  path: "/v1/sessions",
  summary: "Mint a session token for an end user under a plan",
  tags: ["Sessions"],
  kind: "mutation",
  tier: "api_key",
  permission: "sessions",
  body: { kind: "json" },
  input: ZMintSessionInput,
  output: ZMintedSession,
  produces: { kind: "json" },
  errors: { 403: MINT_REFUSED },
  pricing: { kind: "free" },
  // Signing (and its JWT library) is loaded by the first mint.
  handler: async (ctx, input) => (await import("../../identity/sessions/mint-session")).mintSession(keyOnly(ctx.principal, "mint sessions"), input),
});

export const sessionsRevoke = operation({
  id: "sessions.revoke",
  method: "DELETE",
  path: "/v1/sessions/{id}",
  summary: "Revoke a session token (on every instance within a second)",
  tags: ["Sessions"],
  kind: "mutation",
  tier: "api_key",
  permission: "sessions",
  body: { kind: "none" },
  input: z.object({ id: z.string().min(1).max(100) }),
  output: ZSessionView,
  produces: { kind: "json" },
  errors: { 403: ONLY_KEYS },
  pricing: { kind: "free" },
  handler: (ctx, input) => {
    const key = keyOnly(ctx.principal, "revoke sessions");
    return revokeSession(key.workspaceId, input.id, key.planId ?? null, key.keyId ? keyActor(key.keyId) : undefined);
  },
});

export const sessionsRevokeSubject = operation({
  id: "sessions.revokeSubject",
  method: "POST",
  path: "/v1/sessions/revoke",
  summary: "Revoke every session token of an end user",
  tags: ["Sessions"],
  kind: "mutation",
  tier: "api_key",
  permission: "sessions",
  body: { kind: "json" },
  input: z.object({ subject: z.string().min(1).max(256) }),
  output: z.object({ object: z.literal("session.revocation"), subject: z.string(), revoked: z.number().int() }),
  produces: { kind: "json" },
  errors: { 403: ONLY_KEYS },
  pricing: { kind: "free" },
  handler: (ctx, input) => {
    const key = keyOnly(ctx.principal, "revoke sessions");
    return revokeSubject(key.workspaceId, input.subject, key.planId ?? null, key.keyId ? keyActor(key.keyId) : undefined);
  },
});

const ZJwk = z.object({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.string() }).catchall(z.unknown());

export const jwksDocument = operation({
  id: "sessions.jwks",
  method: "GET",
  path: "/.well-known/jwks.json",
  summary: "The public keys that session tokens are signed with (JWK Set)",
  tags: ["Sessions"],
  kind: "query",
  tier: "none",
  permission: null,
  body: { kind: "none" },
  input: z.object({}).optional(),
  output: z.object({ keys: z.array(ZJwk) }),
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: async () => (await import("../../identity/sessions/signing-keys")).jwks() as Promise<{ keys: z.infer<typeof ZJwk>[] }>,
});
