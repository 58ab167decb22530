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

/** Resolves an Authorization header to a principal, or throws 401 invalid_api_key (402 for a spent key). */
export async function authenticateBearer(header: string | null): Promise<Principal> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) throw errors.invalidApiKey(header ? MESSAGES.malformed : MESSAGES.missing);
  const result = await verifyKey(match[1]);
  if (!result.valid) {
    if (result.reason === "spend_limit") throw errors.keySpendLimitReached();
    throw errors.invalidApiKey(MESSAGES[result.reason]);
  }
  return { kind: "api_key", workspaceId: result.workspaceId, keyId: result.keyId };
}
