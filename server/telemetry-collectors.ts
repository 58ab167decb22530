// The gauges read when metrics are scraped: node health, breakers and load, the video job queue
// and the usage writer's lag. Registered once per gateway process
// (server/transport/node/gateway-server.ts).
import { env } from "./infra/env";
import { observedGauge } from "./infra/telemetry/metrics";
import { logFor } from "./infra/telemetry/log";
import { videoQueueStats, type VideoQueueStats } from "./inference/videos/queue-stats";
import { usageWriter } from "./ledger/usage-writer";
import { isOpen } from "./routing/nodes/breaker";
import { getRoutableNodes } from "./routing/nodes/node-registry";
import { outstandingCalls } from "./routing/nodes/router";

const log = logFor("metrics");
/** The routable nodes; none when they cannot be read (the scrape still answers). */
const nodes = () => getRoutableNodes().catch((err: unknown) => (log.warn({ err }, "node metrics failed"), []));
let registered = false;

export function registerCollectors(): void {
  if (registered) return;
  registered = true;
  observedGauge({
    name: "gateway_node_up",
    help: "1 when the node's last health check passed, 0 otherwise (enabled nodes).",
    labelNames: ["node", "name"],
    aggregate: "max",
    async collect(g) {
      g.reset();
      for (const n of await nodes()) g.set({ node: n.id, name: n.name }, n.online ? 1 : 0);
    },
  });
  observedGauge({
    name: "gateway_node_breaker_open",
    help: "1 while the node's circuit breaker keeps it out of rotation.",
    labelNames: ["node"],
    aggregate: "max",
    async collect(g) {
      g.reset();
      for (const n of await nodes()) g.set({ node: n.id }, isOpen(n.id) ? 1 : 0);
    },
  });
  observedGauge({
    name: "gateway_node_outstanding_requests",
    help: "Calls in flight to the node.",
    labelNames: ["node"],
    aggregate: "sum",
    collect(g) {
      g.reset();
      for (const [node, calls] of outstandingCalls()) g.set({ node }, calls);
    },
  });
  // One process of an instance asks the database; the others report nothing (aggregated by max).
  if (env.GATEWAY_PROCESS_INDEX === 0) {
    // Both gauges of one scrape come from one query; a failed query leaves them out of that scrape.
    let last: { at: number; stats: Promise<VideoQueueStats> } | null = null;
    const fresh = () => {
      if (!last || Date.now() - last.at > 1000) {
        last = { at: Date.now(), stats: videoQueueStats().catch((err: unknown) => (log.warn({ err }, "video queue metrics failed"), [])) };
      }
      return last.stats;
    };
    observedGauge({
      name: "gateway_video_jobs",
      help: "Video jobs by status: queued (waiting for a worker) and in_progress (rendering).",
      labelNames: ["status"],
      aggregate: "max",
      async collect(g) {
        g.reset();
        for (const s of await fresh()) g.set({ status: s.status }, s.jobs);
      },
    });
    observedGauge({
      name: "gateway_video_job_oldest_seconds",
      help: "Age of the oldest video job in each status: queued since created, in_progress since started.",
      labelNames: ["status"],
      aggregate: "max",
      async collect(g) {
        g.reset();
        for (const s of await fresh()) g.set({ status: s.status }, s.oldestSeconds);
      },
    });
  }
  observedGauge({
    name: "gateway_usage_writer_pending_events",
    help: "Usage events waiting for their batch's commit.",
    aggregate: "sum",
    collect: (g) => g.set(usageWriter().lag().pending),
  });
  observedGauge({
    name: "gateway_usage_writer_lag_seconds",
    help: "How long the oldest usage event waiting for its commit has waited.",
    aggregate: "max",
    collect: (g) => g.set(usageWriter().lag().oldestMs / 1000),
  });
}
