// A failed call to an upstream node, whatever its wire format: what went wrong (no connection,
// a timeout, an error status, an answer that could not be read), the node's status, error body
// and Retry-After when it answered, and whether another node may do better.

/** Statuses that are about the request itself: passed on to the client, never retried. */
export const REQUEST_ERRORS = new Set([400, 413, 422]);

/** Why a node call failed. The message names the failure, never the node's key. */
export class UpstreamFailure extends Error {
  constructor(
    /** `credentials`: the gateway could not authenticate to the node (no token, no AWS credentials); the node was never called. */
    readonly kind: "connect" | "timeout" | "status" | "protocol" | "credentials",
    message: string,
    readonly status?: number,
    readonly body?: unknown,
    readonly retryAfter?: string,
  ) {
    super(message);
  }

  /**
   * A connect error, a timeout to first byte, a 429, a 5xx, or a node-side 401/402/403/404 (its
   * own account or catalog): another node may do better. A 400/413/422 would fail anywhere.
   */
  get retryable(): boolean {
    return this.kind !== "status" || !REQUEST_ERRORS.has(this.status ?? 0);
  }
}
