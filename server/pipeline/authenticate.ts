// Who may call, the first stage of a /v1 call: its credential to a principal. A workspace API key
// or a session token (a JWT) in `Authorization: Bearer` (or `x-api-key`, which the transport reads
// as the same); with x402 on, a call with no credential to an operation x402 callers may use is an
// x402 payer (with the payment its PAYMENT-SIGNATURE carries, if any). Then the operation's
// permission group, for a restricted key or a token it minted; and for every host (the tRPC
// procedures too), the operation's tier.
import { x402Enabled } from "../admission/x402/config";
import { x402Principal, type X402Use } from "../admission/x402/principal";
import type { Tier } from "../contract/operation";
import type { KeyGrant, KeyPermission } from "../identity/keys/permissions";
import { verifyKey } from "../identity/keys/verify-key";
import type { Principal } from "../identity/principal";
import type { SessionUser } from "../identity/users/session-user";
import { can } from "../identity/workspaces/permissions";
import { errors } from "../kernel/errors";

/** What the transport found in the request's headers. */
export type Credential = {
  /** The one credential the request carries (`Bearer <secret>`), or null: none, or only the x402 placeholder. Throws 400 for two. */
  bearer: () => string | null;
  /** The Authorization header as sent (for the error when it holds no usable credential). */
  authorization: string | undefined;
  /** The PAYMENT-SIGNATURE header (x402). */
  payment: string | undefined;
  /** The URL called, which an x402 payment names. */
  resource: () => string;
};

/** What the call is to, as far as authentication cares. */
export type Target = {
  /** Spends the workspace's money: a key at its spend limit is refused (402). */
  spends: boolean;
  /** How x402 callers may use it; absent: they may not. */
  x402?: X402Use;
  /** The group a restricted key needs, and how the call is named in the refusal; null: none needed. */
  permission: KeyPermission | null;
  method: string;
  path: string;
};

/** Token verification (and its JWT library) is loaded by the first session token a process sees. */
let tokens: Promise<typeof import("../identity/sessions/verify-token")> | undefined;

const MESSAGES = {
  missing: "You didn't provide an API key. Pass it as `Authorization: Bearer <key>`.",
  malformed: "The API key is malformed. Gateway keys look like `sk-gw-...`; session tokens are JWTs.",
  not_found: "Incorrect API key provided.",
  revoked: "This API key has been revoked.",
  expired: "This API key has expired.",
} as const;

/** Looks like a JWT (three base64url parts), not an API key. */
export const looksLikeJwt = (credential: string) => /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(credential);

/**
 * Resolves an Authorization value to a principal: a workspace API key, or a session token (a
 * JWT). Throws 401 (invalid_api_key, or token_expired / invalid_token / token_revoked). A key at
 * its spend limit is refused (402) only for a call that spends: it can still read its jobs,
 * download the videos it paid for and list models.
 */
export async function authenticateBearer(header: string | null, spends: boolean): Promise<Principal> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) throw errors.invalidApiKey(header ? MESSAGES.malformed : MESSAGES.missing);
  if (looksLikeJwt(match[1])) return (await (tokens ??= import("../identity/sessions/verify-token"))).verifyToken(match[1]);
  const result = await verifyKey(match[1]);
  if (!result.valid) throw errors.invalidApiKey(MESSAGES[result.reason]);
  if (spends && result.spendLimitReached) throw errors.keySpendLimitReached();
  const principal: Extract<Principal, { kind: "api_key" }> = { kind: "api_key", workspaceId: result.workspaceId, keyId: result.keyId, keyName: result.keyName, planId: result.planId, grant: result.grant };
  if (result.capture !== null) principal.capture = result.capture;
  if (result.cache) principal.cache = result.cache;
  return principal;
}

/** The caller of a call to `target`, allowed its permission group, or throws 401, 402 or 403. */
export async function authenticate(credential: Credential, target: Target | null): Promise<Principal> {
  // No credential (or the placeholder key `x402`, for SDKs that insist on one), and x402 is on:
  // an operation x402 callers may use is paid for (or read) with x402.
  const bearer = credential.bearer();
  const principal =
    !bearer && target?.x402 && x402Enabled()
      ? await x402Principal(target.x402, credential.payment, credential.resource())
      : await authenticateBearer(bearer ?? credential.authorization ?? null, target?.spends ?? false);
  // A restricted key (or a token it minted) is refused an operation group it was not given, before its body is read.
  if (target) assertPermitted(principal, target.permission, target.method, target.path);
  return principal;
}

/**
 * 403 insufficient_permissions when the caller's grant (keys/permissions.ts) lacks the
 * operation's group: checked right after the credential, before the body is read.
 */
export function assertPermitted(principal: { kind: string; grant?: KeyGrant | null }, permission: KeyPermission | null, method: string, path: string): void {
  if (permission === null || !principal.grant?.permissions || principal.grant.permissions.has(permission)) return;
  throw errors.insufficientPermissions(permission, `${method} ${path}`, principal.kind === "session" ? "session token" : "API key");
}

// Who may call an operation of each tier (contract/operation.ts): `none` anyone; `api_key` a
// credential of a workspace (an API key, a session token, an x402 payer, or a signed-in member
// acting in a workspace); `billed` one that may spend it (dashboard members need a role that may
// call models, not `billing`). A signed-in member changes nothing through an operation (a
// mutation, of any tier) unless their role may act in the workspace (`workspace.use`): a viewer
// only reads.

/** Who is calling, as a host knows it: the principal, and for the dashboard the signed-in user (null: none; absent on /v1). */
export type Caller = { principal: Principal | null; user?: SessionUser | null };

function principalOf(caller: Caller): Principal {
  if (caller.principal) return caller.principal;
  // user: undefined is an API-key caller (/v1), null a dashboard request without a session.
  if (caller.user) throw errors.notFound("Pick a workspace (x-workspace-id) you are a member of.", "workspace_not_found");
  throw caller.user === null ? errors.unauthenticated() : errors.invalidApiKey();
}

/** Throws unless the caller may call an operation of `tier` (and of `kind`: a mutation needs a member who may act). */
export function assertTier(tier: Tier, caller: Caller, kind: "query" | "mutation" = "query"): void {
  const member = caller.principal?.kind === "user" ? caller.principal : null;
  if (member && kind === "mutation" && !can(member, "workspace.use")) {
    throw errors.permissionDenied(`The ${roleName(member)} role is read-only: it cannot call this operation from the dashboard.`);
  }
  if (tier === "none") return;
  const principal = principalOf(caller);
  if (tier === "billed" && principal.kind === "user" && !can(principal, "models.call")) {
    throw errors.permissionDenied(`The ${roleName(principal)} role cannot call models from the dashboard.`);
  }
}

/** How a refusal names a member's role: their custom role's name, or the built-in one. */
const roleName = (p: Extract<Principal, { kind: "user" }>) => p.customRole?.name ?? p.role;
