// The first stage of a /v1 call: its credential to a principal. A workspace API key or a session
// token (a JWT) in `Authorization: Bearer` (or `x-api-key`, which the transport reads as the
// same); with x402 on, a call with no credential to an operation x402 callers may use is an x402
// payer (with the payment its PAYMENT-SIGNATURE carries, if any). Then the operation's permission
// group, for a restricted key or a token it minted.
import { x402Enabled } from "../admission/x402/config";
import { x402Principal, type X402Use } from "../admission/x402/principal";
import type { KeyPermission } from "../identity/keys/permissions";
import { assertPermitted } from "../identity/keys/permissions";
import { verifyKey } from "../identity/keys/verify-key";
import type { Principal } from "../identity/principal";
import { looksLikeJwt } from "../identity/sessions/session-schemas";
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
  return { kind: "api_key", workspaceId: result.workspaceId, keyId: result.keyId, planId: result.planId, grant: result.grant };
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
