// The gateway's Prometheus metrics (prom-client), one set per process. With several processes
// (WEB_CONCURRENCY), the first process asks every other for its figures and aggregates them
// (instance-metrics.ts): counters and histograms are summed; each gauge says how it combines.
// Names and labels are documented in docs/OPERATIONS.md, with example PromQL.
import { collectDefaultMetrics, Counter, Gauge, Histogram, register, type Aggregator } from "prom-client";

/** Seconds, from a little under a millisecond (the gateway's own time) to a long generation. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** How often the event loop's lag is sampled: blocks shorter than this may go unseen. */
const EVENT_LOOP_SAMPLE_MS = 100;

const shared = globalThis as unknown as { gatewayMetrics?: ReturnType<typeof define> };

function define() {
  // The event loop lag is sampled by a timer; prom-client's default (every 10 ms) wakes an idle
  // process 100 times a second, which on a VM cost ~2% of a core per process doing nothing.
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return {
    requests: new Counter({
      name: "gateway_http_requests_total",
      help: "Requests answered on /v1 and /health, by route (the operation's path), method, status, credential kind and model.",
      labelNames: ["route", "method", "status", "credential", "model"] as const,
    }),
    requestDuration: new Histogram({
      name: "gateway_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer (a stream's last byte), by route.",
      labelNames: ["route"] as const,
      buckets: SECONDS,
    }),
    overhead: new Histogram({
      name: "gateway_overhead_duration_seconds",
      help: "The gateway's own part of a call that a node answered: the whole answer's time less the node's.",
      labelNames: ["route"] as const,
      buckets: SECONDS,
    }),
    upstreamDuration: new Histogram({
      name: "gateway_upstream_duration_seconds",
      help: "Time a node took for a charged call: from sending it to the node's last byte, failovers included.",
      labelNames: ["model", "node"] as const,
      buckets: SECONDS,
    }),
    routeCalls: new Counter({
      name: "gateway_route_attempts_total",
      help: "Attempts of calls to routes (virtual models), by route, target (model, or model@node) and outcome (ok, or the failure: 429, 5xx, timeout, context_length, error).",
      labelNames: ["route", "target", "outcome"] as const,
    }),
    guardrailVerdicts: new Counter({
      name: "gateway_guardrail_verdicts_total",
      help: "Guardrails' verdicts on calls, by the guardrail's type, the stage (input, output) and the outcome (passed, blocked, redacted, flagged, error). Guardrails' names are the workspaces' and are not labels.",
      labelNames: ["type", "stage", "outcome"] as const,
    }),
    mcpToolCalls: new Counter({
      name: "gateway_mcp_tool_calls_total",
      help: "MCP tool calls, by where they came from (mcp: /mcp; responses: the responses API's mcp tool) and outcome (ok, tool_error, refused, unavailable). Servers' and tools' names are the workspaces' and are not labels (the request log has them).",
      labelNames: ["via", "outcome"] as const,
    }),
    mcpToolDuration: new Histogram({
      name: "gateway_mcp_tool_duration_seconds",
      help: "Time an MCP tool call took at its server (the gateway's hop included), by where it came from.",
      labelNames: ["via"] as const,
      buckets: SECONDS,
    }),
    tokens: new Counter({
      name: "gateway_tokens_total",
      help: "Tokens of charged calls, by model and direction (input, output).",
      labelNames: ["model", "direction"] as const,
    }),
    cost: new Counter({
      name: "gateway_cost_usd_total",
      help: "USD charged, by model (the ledger holds the exact amounts; this float is for dashboards).",
      labelNames: ["model"] as const,
    }),
    usageWrite: new Histogram({
      name: "gateway_usage_write_duration_seconds",
      help: "Time the batched usage writer took to commit one batch.",
      buckets: SECONDS,
    }),
    usageBatch: new Histogram({
      name: "gateway_usage_write_batch_size",
      help: "Usage events committed together in one batch.",
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    }),
  };
}

/** This process's metrics (one set per process, whichever copy of this module loads it). */
export function metrics(): ReturnType<typeof define> {
  return (shared.gatewayMetrics ??= define());
}

/**
 * A gauge whose value is read when metrics are scraped: `collect` sets it. `aggregate` says how
 * the processes' values combine (`sum` for what each process holds, `max` for a state they all see).
 */
export function observedGauge<L extends string>(options: {
  name: string;
  help: string;
  labelNames?: readonly L[];
  aggregate: Aggregator;
  collect: (gauge: Gauge<L>) => void | Promise<void>;
}): Gauge<L> {
  metrics();
  const existing = register.getSingleMetric(options.name) as Gauge<L> | undefined;
  if (existing) return existing;
  return new Gauge<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    aggregator: options.aggregate,
    async collect() {
      await options.collect(this);
    },
  });
}

/** This process's metrics in the Prometheus text format. */
export function processMetrics(): Promise<string> {
  metrics();
  return register.metrics();
}

export const METRICS_CONTENT_TYPE = register.contentType;
