// What a request's telemetry is told from below the transport: a call the ledger charged (its
// model, node, node time, tokens, cost) and the write of its usage. The transport implements it
// (metrics, the request's log line and trace); services pass it along with the call's context.

/**
 * A call the node answered (null: the response cache did) and the ledger charged. `nodeMs`: from
 * sending it to the node's last byte. `usageEstimated`: the node reported no usage, the tokens are the gateway's own count.
 */
export type ChargedCall = { modelId: string; nodeId: string | null; nodeMs: number; inputTokens: number; outputTokens: number; cost: string; usageEstimated?: boolean };

export interface CallObserver {
  charged(call: ChargedCall): void;
  /** The charge was paid with x402 for `cost` USD (the metered cost rounded up to the asset's smallest unit, or an exact price): what the call cost. */
  settled?(cost: string): void;
  /** The call's input as redacted by its guardrails: what the request log's capture keeps instead of what was sent. */
  redacted?(input: Record<string, unknown>): void;
  /** Times the write of a call's usage (a span of the request's trace, when traced). */
  usageWrite<T>(write: Promise<T>): Promise<T>;
}
