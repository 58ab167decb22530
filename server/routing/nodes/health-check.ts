// Node health: a node is online when its model list (GET {baseUrl}/models, in its wire format)
// answered 2xx within the timeout.
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { listNodeModels } from "../../providers/model-lists";
import { nodeTarget, type StoredNode } from "../../providers/node-target";
import { healthCheckPassed } from "./breaker";
import { logFor } from "../../infra/telemetry/log";
import { alertNodeStatus } from "../../alerts/gateway-alerts";

const log = logFor("routing");

type CheckedNode = StoredNode & { id: string; status: string; lastHealthCheckAt?: Date | null };

export async function checkNode(node: CheckedNode): Promise<boolean> {
  const started = performance.now();
  let error: string | null = null;
  try {
    await listNodeModels(nodeTarget(node), env.HEALTH_CHECK_TIMEOUT_MS);
  } catch (err) {
    error = (err as Error).message;
  }
  const status = error ? "offline" : "online";
  // A passed check brings a node whose breaker opened back into rotation.
  if (!error) healthCheckPassed(node.id);
  const checkedAt = new Date();
  await db.$transaction(async (tx) => {
    await tx.node.update({
      where: { id: node.id },
      data: {
        status,
        lastHealthCheckAt: checkedAt,
        lastLatencyMs: error ? null : Math.round(performance.now() - started),
        lastError: error,
      },
    });
    if (status !== node.status) await notify(tx, Channel.nodesChanged, node.id);
  });
  if (status !== node.status) alertNodeStatus(node, status, checkedAt);
  return !error;
}

export async function checkAllNodes(): Promise<void> {
  const nodes = await db.node.findMany({
    where: { enabled: true },
    select: { id: true, baseUrl: true, wire: true, apiKeyEncrypted: true, cloud: true, credentialsEncrypted: true, status: true, lastHealthCheckAt: true },
  });
  await Promise.all(nodes.map((n) => checkNode(n).catch(() => false)));
}

/** Runs the checks now and then every HEALTH_CHECK_INTERVAL_MS; returns a stop function. */
export function startHealthChecks(): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    await checkAllNodes().catch((err) => log.error({ err: (err as Error).message }, "health check failed"));
    if (!stopped) timer = setTimeout(run, env.HEALTH_CHECK_INTERVAL_MS).unref();
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
