import { errors } from "../kernel/errors";
import { verifyKey } from "../identity/keys/verify-key";
import type { Principal } from "../identity/principal";

const MESSAGES = {
  missing: "You didn't provide an API key. Pass it as `Authorization: Bearer <key>`.",
  malformed: "The API key is malformed. Gateway keys look like `sk-gw-...`.",
  not_found: "Incorrect API key provided.",
  revoked: "This API key has been revoked.",
  expired: "This API key has expired.",
} as const;

/**
 * Resolves an Authorization header to a principal, or throws 401 invalid_api_key. A key at its
 * spend limit is refused (402) only for a call that spends: it can still read its jobs, download
 * the videos it paid for and list models.
 */
export async function authenticateBearer(header: string | null, spends: boolean): Promise<Principal> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) throw errors.invalidApiKey(header ? MESSAGES.malformed : MESSAGES.missing);
  const result = await verifyKey(match[1]);
  if (!result.valid) throw errors.invalidApiKey(MESSAGES[result.reason]);
  if (spends && result.spendLimitReached) throw errors.keySpendLimitReached();
  return { kind: "api_key", workspaceId: result.workspaceId, keyId: result.keyId };
}
