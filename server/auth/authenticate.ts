import { errors, GatewayError } from "../errors";
import { verifyKey } from "../keys/verify-key";
import type { Principal } from "./principal";

const MESSAGES = {
  missing: "You didn't provide an API key. Pass it as `Authorization: Bearer <key>`.",
  malformed: "The API key is malformed. Gateway keys look like `sk-gw-...`.",
  not_found: "Incorrect API key provided.",
  revoked: "This API key has been revoked.",
  expired: "This API key has expired.",
} as const;

/**
 * A key that reached its spend limit is a valid credential that may not spend any more: answered
 * like the workspace's own 402 (same type), with a code of its own so clients can tell the two
 * apart (adding credits does not help; another key or a new limit does).
 */
const spendLimitReached = () =>
  new GatewayError({
    status: 402,
    code: "key_spend_limit_reached",
    type: "insufficient_quota",
    message: "This API key has reached its spend limit. Use another key, or ask a workspace admin for a key with a higher limit.",
  });

/** Resolves an Authorization header to a principal, or throws 401 invalid_api_key (402 for a spent key). */
export async function authenticateBearer(header: string | null): Promise<Principal> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) throw errors.invalidApiKey(header ? MESSAGES.malformed : MESSAGES.missing);
  const result = await verifyKey(match[1]);
  if (!result.valid) {
    if (result.reason === "spend_limit") throw spendLimitReached();
    throw errors.invalidApiKey(MESSAGES[result.reason]);
  }
  return { kind: "api_key", workspaceId: result.workspaceId, keyId: result.keyId };
}
