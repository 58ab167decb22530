// The attempt of a routed call on one target (server/pipeline/route-stage.ts), as the node router
// needs to know it: the node the target is pinned to, and its own timeouts. The route stage puts it
// on the call's context (CallContext.attempt) before each attempt, and the modalities hand it to
// the node router with the call (routing/nodes/router.ts withFailover), which carries the timeouts
// to the node's request (providers/http.ts). Unset for a call that names its model directly.
// (Not an AsyncLocalStorage: on Node 20, enabling one puts an async hook on every promise of the process.)

export type AttemptScope = {
  /** Only this node (its id or name) may serve the attempt. */
  node?: string;
  /** The target's timeout to the node's first byte (ms), instead of UPSTREAM_FIRST_BYTE_TIMEOUT_MS. */
  firstByteTimeoutMs?: number;
  /** Aborted when the target's whole-attempt timeout passes. */
  signal?: AbortSignal;
  /** Set by the node router: the node that served the attempt (or the last it tried). */
  served?: { id: string; name: string };
};
