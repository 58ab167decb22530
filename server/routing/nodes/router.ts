// Picks the node for a call and fails over. Among online nodes that serve the model and whose
// breaker allows it, the one with the fewest outstanding calls per unit of weight wins.
// A failure before any output (connect error, timeout to first byte, 429, 5xx) is retried
// once on another node.
import type { AttemptScope } from "../../kernel/attempt-scope";
import { GatewayError } from "../../kernel/errors";
import { REQUEST_ERRORS, UpstreamFailure } from "../../providers/upstream-failure";
import { breakerAllows, recordFailure, recordSuccess } from "./breaker";
import { getRoutableNodes, type RoutableNode } from "./node-registry";

const outstanding = new Map<string, number>();

export type Routed = { node: RoutableNode; upstreamModel: string };

export async function pickNode(modelId: string, exclude: Set<string> = new Set(), only?: (node: RoutableNode) => boolean): Promise<Routed | null> {
  const nodes = await getRoutableNodes();
  let best: RoutableNode | null = null;
  let bestLoad = Infinity;
  for (const node of nodes) {
    if (!node.online || exclude.has(node.id) || !node.models.has(modelId) || (only && !only(node))) continue;
    const load = ((outstanding.get(node.id) ?? 0) + 1) / Math.max(node.weight, 1);
    if (load < bestLoad || (load === bestLoad && Math.random() < 0.5)) {
      if (!breakerAllows(node.id)) continue;
      best = node;
      bestLoad = load;
    }
  }
  return best && { node: best, upstreamModel: best.models.get(modelId)! };
}

/** Calls in flight from this process, per node. */
export function outstandingCalls(): ReadonlyMap<string, number> {
  return outstanding;
}

/** Counts a call against the node until `release` is called (for streams: when the stream ends). */
export function acquire(nodeId: string): () => void {
  outstanding.set(nodeId, (outstanding.get(nodeId) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    outstanding.set(nodeId, (outstanding.get(nodeId) ?? 1) - 1);
  };
}

export function upstreamError(failure: UpstreamFailure): GatewayError {
  // Node answers about the request itself mean the same to the client. Others (401, 402, 403,
  // 404: the node's own account or catalog) are the gateway's problem: a 502.
  if (failure.kind === "status" && failure.status && REQUEST_ERRORS.has(failure.status)) {
    // The node refused the request itself (e.g. context too long): pass its words on.
    // OpenAI's error body, Anthropic's ({type: "error", error: {type, message}}) or Gemini's ({error: {code: 400, message, status}}).
    const body = failure.body as { error?: { message?: string; param?: string | null; code?: unknown } } | null;
    return new GatewayError({
      cause: failure,
      status: failure.status,
      code: typeof body?.error?.code === "string" ? body.error.code : "upstream_rejected",
      message: body?.error?.message ?? failure.message,
      param: body?.error?.param ?? null,
    });
  }
  if (failure.status === 429) {
    return new GatewayError({
      cause: failure,
      status: 429,
      code: "upstream_rate_limited",
      message: "The nodes serving this model are rate limited. Retry shortly.",
      detail: failure.retryAfter ? { retryAfter: failure.retryAfter } : {},
    });
  }
  // Overloaded (a 503, Anthropic's 529): a retryable 503 (Anthropic clients see their 529).
  if (failure.status === 503 || failure.status === 529) {
    return new GatewayError({
      cause: failure,
      status: 503,
      code: "upstream_overloaded",
      type: "server_error",
      message: "The nodes serving this model are overloaded. Retry shortly.",
      detail: failure.retryAfter ? { retryAfter: failure.retryAfter } : {},
    });
  }
  // The node refused the gateway's own credentials, or none could be had: the operator's to fix.
  // A cloud adapter words a refusal as what to check (never a credential or an account's
  // identity); that is passed on. Why no credentials could be had may name the node's identity:
  // it stays in the node's last error (its list, the dashboard).
  if (failure.kind === "credentials" || (failure.kind === "status" && (failure.status === 401 || failure.status === 403))) {
    const worded = failure.kind === "status" && !failure.message.startsWith("the node answered HTTP");
    return new GatewayError({
      cause: failure,
      status: 502,
      code: "upstream_auth_failed",
      type: "server_error",
      message: worded
        ? `The node serving this model refused the gateway's credentials; ${failure.message}.`
        : "The node serving this model refused the gateway's credentials, or none could be had for it: the gateway's operator must fix the node's key or credentials (its last error says why).",
    });
  }
  if (failure.kind === "timeout") {
    return new GatewayError({
      cause: failure, status: 504, code: "upstream_timeout", type: "server_error", message: "The node serving this model timed out." });
  }
  return new GatewayError({
      cause: failure, status: 502, code: "upstream_error", type: "server_error", message: "The node serving this model failed. Retry, or try another model." });
}

/**
 * Runs `attempt` on a node, and once more on another node if the first failed before any output.
 * `attempt` resolves when the node's first byte arrived; what happens after is the caller's,
 * who must call `release` once done with the node.
 */
export async function withFailover<T>(
  modelId: string,
  attempt: (routed: Routed) => Promise<T>,
  signal?: AbortSignal,
  scope?: AttemptScope,
): Promise<{ result: T; routed: Routed; release: () => void }> {
  const tried = new Set<string>();
  let lastFailure: UpstreamFailure | undefined;
  // A route's target pinned to a node (routing/routes/): only that node serves it.
  const pinned = scope?.node;
  const only = pinned ? (n: RoutableNode) => n.id === pinned || n.name === pinned : undefined;
  for (let round = 0; round < 2; round++) {
    const picked = await pickNode(modelId, tried, only);
    if (!picked) break;
    let routed: Routed = picked;
    tried.add(routed.node.id);
    if (scope) {
      scope.served = { id: routed.node.id, name: routed.node.name };
      // A route's target may have its own timeouts: the node's request carries them (providers/http.ts).
      if (scope.firstByteTimeoutMs || scope.signal) routed = { ...routed, node: { ...routed.node, firstByteTimeoutMs: scope.firstByteTimeoutMs, signal: scope.signal } };
    }
    const release = acquire(routed.node.id);
    try {
      const result = await attempt(routed);
      recordSuccess(routed.node.id);
      // The caller releases when it has finished with the node (a stream: at its end).
      return { result, routed, release };
    } catch (err) {
      release();
      // A call the gateway aborted (a cancelled background response) says nothing about the node.
      if (signal?.aborted || !(err instanceof UpstreamFailure)) throw err;
      lastFailure = err;
      if (!err.retryable) throw upstreamError(err);
      // A route's own timeout (shorter than the gateway's) says the target was too slow for that
      // route, not that the node is broken: it never counts toward the breaker that every
      // workspace's calls share, and the route, not this router, decides where the call goes next.
      if (scope && (scope.signal?.aborted || (err.kind === "timeout" && scope.firstByteTimeoutMs !== undefined))) throw upstreamError(err);
      // A 429 is the node pacing one caller (often one workspace's key upstream), not a broken
      // node: it fails over, but never counts toward opening the breaker for everyone.
      if (err.kind === "status" && err.status === 429) continue;
      // The other processes are told before this call fails over or answers, so the next call anywhere counts it.
      await recordFailure(routed.node.id);
    }
  }
  if (lastFailure) throw upstreamError(lastFailure);
  throw new GatewayError({
    status: 503,
    code: "no_available_node",
    type: "server_error",
    message: `No node is available to serve \`${modelId}\` right now. Retry shortly.`,
  });
}

