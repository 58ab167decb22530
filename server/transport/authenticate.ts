import { errors, GatewayError } from "../kernel/errors";
import { verifyKey } from "../identity/keys/verify-key";
import type { Principal } from "../identity/principal";
import { looksLikeJwt } from "../identity/sessions/session-schemas";

/** Token verification (and its JWT library) is loaded by the first session token a process sees. */
let tokens: Promise<typeof import("../identity/sessions/verify-token")> | undefined;

const MESSAGES = {
  missing: "You didn't provide an API key. Pass it as `Authorization: Bearer <key>`.",
  malformed: "The API key is malformed. Gateway keys look like `sk-gw-...`; session tokens are JWTs.",
  not_found: "Incorrect API key provided.",
  revoked: "This API key has been revoked.",
  expired: "This API key has expired.",
} as const;

/** The API key a client paying with x402 may pass to an SDK that requires one. */
const X402_PLACEHOLDER = /^Bearer\s+x402\s*$/i;

const ambiguous = (message: string) => new GatewayError({ status: 400, code: "ambiguous_credentials", param: null, message });

/**
 * The one credential a request carries, as an Authorization value (`Bearer <secret>`), or null
 * when it carries none (or only the x402 placeholder). Anthropic-format clients send their key in
 * `x-api-key`, which counts the same. A request naming two credentials is refused (400) rather
 * than served under whichever a proxy or parser happens to keep: two Authorization headers (the
 * data plane's server joins repeated headers with ", ", which no single credential contains), or
 * an Authorization and an x-api-key that name different secrets.
 */
export function credentialOf(authorization: string | undefined, apiKey: string | undefined): string | null {
  if (authorization?.includes(",")) throw ambiguous("The request carries more than one Authorization header. Send exactly one credential.");
  if (apiKey?.includes(",")) throw ambiguous("The request carries more than one x-api-key header. Send exactly one credential.");
  const bearer = authorization?.trim() ? authorization : undefined;
  // `x-api-key: x402` is the placeholder too (for Anthropic-format SDKs that insist on a key).
  const key = apiKey?.trim() && apiKey.trim().toLowerCase() !== "x402" ? apiKey.trim() : undefined;
  if (!key) return bearer && !X402_PLACEHOLDER.test(bearer) ? bearer : null;
  if (bearer && !X402_PLACEHOLDER.test(bearer) && bearer.match(/^Bearer\s+(\S+)\s*$/i)?.[1] !== key) {
    throw ambiguous("The Authorization and x-api-key headers name different credentials. Send exactly one.");
  }
  return `Bearer ${key}`;
}

/**
 * Resolves an Authorization header to a principal: a workspace API key, or a session token (a
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
