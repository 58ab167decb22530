// Alerts raised by the gateway's own background work: a node's health changed, a video job failed.
import { db } from "../infra/db/client";
import { logFor } from "../infra/telemetry/log";
import { emitAlert, emitGatewayAlert } from "./emit";

const log = logFor("alerts");

/**
 * A health check changed a node's status. `node.down` when it went offline (from online or
 * unknown), `node.up` when it came back online from offline (a first check that finds it online is
 * no news). Nodes serve every workspace, so the event goes to every workspace's webhooks subscribed
 * to it; it names the node and its region, never its URL or its error. The event id is the node,
 * its new status and the time of the check the instance saw before its own (`seenCheckAt`): two
 * instances that saw the same state and noticed the same change send one event.
 */
export function alertNodeStatus(node: { id: string; status: string; lastHealthCheckAt?: Date | null }, status: "online" | "offline", checkedAt: Date): void {
  const type = status === "offline" ? "node.down" : node.status === "offline" ? "node.up" : null;
  if (!type) return;
  const seen = node.lastHealthCheckAt ? node.lastHealthCheckAt.getTime() : Math.floor(checkedAt.getTime() / 60_000) * 60_000;
  void db.node
    .findUnique({ where: { id: node.id }, select: { id: true, name: true, city: true, country: true } })
    .then((row) => row && emitGatewayAlert(type, `${type}:${node.id}:${seen}`, { node_id: row.id, node_name: row.name, city: row.city, country: row.country, status, previous_status: node.status }))
    .catch((err: unknown) => log.error({ err, nodeId: node.id }, "node alert not emitted"));
}

/** Video jobs that ended failed (by their worker, or by a sweep): video.failed, once per job. */
export function alertVideosFailed(jobs: readonly { id: string; workspaceId: string }[]): void {
  if (!jobs.length) return;
  void db.videoJob
    .findMany({ where: { id: { in: jobs.map((j) => j.id) } }, select: { id: true, workspaceId: true, modelId: true, errorCode: true, errorMessage: true, createdAt: true } })
    .then((rows) => {
      for (const j of rows) {
        emitAlert(j.workspaceId, "video.failed", `video.failed:${j.id}`, {
          video_id: j.id,
          model: j.modelId,
          error: { code: j.errorCode, message: j.errorMessage },
          created_at: Math.floor(j.createdAt.getTime() / 1000),
        });
      }
    })
    .catch((err: unknown) => log.error({ err }, "video alert not emitted"));
}
