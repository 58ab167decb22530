// A node's Microsoft Entra ID token, sent as `Authorization: Bearer`: fetched on the first call,
// kept, and fetched again a few minutes before it expires. One signer per node (node-target.ts
// keeps it as long as the node), so every call to the node shares its token and its refresh.
import type { AccessToken, TokenCredential } from "@azure/identity";
import type { Signer } from "../cloud";

/** The scope of Azure OpenAI's (Cognitive Services') data plane. */
export const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";

/** How long before its expiry a token is replaced: a call never leaves with one about to lapse on the way. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** When a token should be replaced: when Entra says (`refresh_in`), at the latest the margin before it expires. */
function refreshAt(token: AccessToken): number {
  return Math.min(token.refreshAfterTimestamp ?? Infinity, token.expiresOnTimestamp - REFRESH_MARGIN_MS);
}

/**
 * A signer that sends the credential's token. `credential` is made on first use (loading
 * @azure/identity only for the nodes that need it). Concurrent calls that find no fresh token
 * wait for the same fetch; a refresh that fails while the old token is still valid keeps the old
 * one, so a brief outage of Entra does not fail calls the token could still make.
 */
export function entraSigner(credential: () => Promise<TokenCredential>, now: () => number = Date.now): Signer {
  let token: AccessToken | null = null;
  let fetching: Promise<AccessToken> | null = null;
  const fetchToken = async (): Promise<AccessToken> => {
    const fresh = await (await credential()).getToken(COGNITIVE_SERVICES_SCOPE);
    if (!fresh) throw new Error("Microsoft Entra ID gave no token");
    token = fresh;
    return fresh;
  };
  return async () => {
    if (!token || now() >= refreshAt(token)) {
      fetching ??= fetchToken().finally(() => (fetching = null));
      const held = token;
      try {
        await fetching;
      } catch (err) {
        if (!held || now() >= held.expiresOnTimestamp) throw err;
      }
    }
    return { authorization: `Bearer ${token!.token}` };
  };
}
