// The attempt of a routed call on one target (server/pipeline/route-stage.ts), as the layers below
// it need to know it without every modality passing it along: the node the target is pinned to,
// and its own timeout to the node's first byte. Unset for a call that names its model directly,
// which then pays one AsyncLocalStorage read per node call.
import { AsyncLocalStorage } from "node:async_hooks";

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

const storage = new AsyncLocalStorage<AttemptScope>();

export const attemptScope = (): AttemptScope | undefined => storage.getStore();

export function withinAttempt<T>(scope: AttemptScope, work: () => Promise<T>): Promise<T> {
  return storage.run(scope, work);
}
