// `GET /metrics` on the gateway's own port: the instance's Prometheus metrics for a request that
// bears METRICS_TOKEN. Without a token configured there is nothing here (404); METRICS_PORT
// serves them on a port of their own instead (infra/telemetry/metrics-port.ts).
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../../infra/env";
import { instanceMetrics } from "../../infra/telemetry/instance-metrics";
import { PROMETHEUS_TEXT } from "../../infra/telemetry/metrics-port";
import { GatewayError } from "../../kernel/errors";
import { errorReply } from "../error-adapter";
import { newRequestId } from "../../kernel/ids";
import { writeReply } from "./write-reply";

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

function refusal(req: IncomingMessage): GatewayError | null {
  if (!env.METRICS_TOKEN) {
    return new GatewayError({
      status: 404,
      code: "unknown_url",
      message: env.METRICS_PORT ? `Metrics are served on port ${env.METRICS_PORT}.` : "Metrics are off: set METRICS_TOKEN (or METRICS_PORT) to serve them.",
    });
  }
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim() ?? "";
  if (!sameSecret(given, env.METRICS_TOKEN)) return new GatewayError({ status: 401, code: "invalid_metrics_token", message: "Send the metrics token as a bearer token (Authorization: Bearer <METRICS_TOKEN>)." });
  if (req.method !== "GET" && req.method !== "HEAD") return new GatewayError({ status: 405, code: "method_not_allowed", message: `Method ${req.method} is not allowed on this path. Allowed: GET, HEAD.` });
  return null;
}

export async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refused = refusal(req);
  if (refused) {
    const reply = errorReply(refused, newRequestId());
    if (refused.status === 401) reply.headers["www-authenticate"] = 'Bearer realm="metrics"';
    if (refused.status === 405) reply.headers.allow = "GET, HEAD";
    return writeReply(res, reply, req.method === "HEAD");
  }
  let body: string;
  try {
    body = await instanceMetrics();
  } catch (err) {
    const reply = errorReply(new GatewayError({ status: 503, code: "metrics_unavailable", message: `Metrics could not be gathered: ${String(err)}` }), newRequestId());
    return writeReply(res, reply, false);
  }
  res.writeHead(200, { "content-type": PROMETHEUS_TEXT, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : body);
}
