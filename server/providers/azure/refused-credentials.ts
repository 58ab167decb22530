// Azure's 401 and 403 are the operator's to fix (a wrong or revoked key, an Entra application
// or managed identity without a role on the resource): the failure says so in words the node's
// last error and the logs show. Another node may still serve the call, so it stays retryable.
// The message names what to check, never the credential.
import { UpstreamFailure } from "../upstream-failure";

export const REFUSED_CREDENTIALS =
  "the node's key or Entra token was refused: check its api-key, or that its Entra application or managed identity has the Cognitive Services OpenAI User role on the resource";

/** A 401 or 403 as the operator's failure; any other error as it was. */
export function operatorFacing(err: unknown): unknown {
  if (!(err instanceof UpstreamFailure) || (err.status !== 401 && err.status !== 403)) return err;
  return new UpstreamFailure(err.kind, `${REFUSED_CREDENTIALS} (HTTP ${err.status})`, err.status, err.body, err.retryAfter);
}

/** Runs a call to the node, its refusals of the credentials told as the operator's. */
export async function withCredentialHint<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw operatorFacing(err);
  }
}
