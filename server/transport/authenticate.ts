import { errors } from "../kernel/errors";
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
  return { kind: "api_key", workspaceId: result.workspaceId, keyId: result.keyId, planId: result.planId };
}
