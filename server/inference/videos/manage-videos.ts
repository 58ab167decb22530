// Reading and deleting a workspace's video jobs. A job of another workspace, an unknown id and an
// expired job get the same 404, so ids reveal nothing across workspaces.
import type { CallContext } from "../../identity/principal";
import { db } from "../../infra/db/client";
import { errors, GatewayError } from "../../kernel/errors";
import type { VideoJob } from "../../generated/prisma/client";
import { blobStore } from "../../infra/storage/blob-store";
import type { VideoList } from "./schema";
import { toVideoObject, type VideoJobObject } from "./video-object";

const notFound = (id: string) => errors.notFound(`No video job found with id '${id}'.`, "video_not_found", "id");

/** Not expired: no expiry yet (still running), or one in the future. */
const live = () => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] });

/** The caller's live job, or 404. */
export async function findJob(ctx: CallContext, id: string): Promise<VideoJob> {
  const job = await db.videoJob.findFirst({ where: { id, workspaceId: ctx.principal.workspaceId, ...live() } });
  if (!job) throw notFound(id);
  return job;
}

export async function getVideo(ctx: CallContext, id: string): Promise<VideoJobObject> {
  return toVideoObject(await findJob(ctx, id));
}

export type VideoListPage = { object: "list"; data: VideoJobObject[]; first_id: string | null; last_id: string | null; has_more: boolean };

/** The workspace's jobs, newest first unless `order` is `asc`; `after` is the last id of the previous page. */
export async function listVideos(ctx: CallContext, q: VideoList): Promise<VideoListPage> {
  const workspaceId = ctx.principal.workspaceId;
  const direction = q.order;
  let cursor = {};
  if (q.after) {
    const after = await db.videoJob.findFirst({ where: { id: q.after, workspaceId }, select: { createdAt: true, id: true } });
    if (!after) throw errors.invalidRequest(`No video job found with id '${q.after}'.`, "after", "invalid_value");
    const beyond = direction === "desc" ? "lt" : "gt";
    cursor = { OR: [{ createdAt: { [beyond]: after.createdAt } }, { createdAt: after.createdAt, id: { [beyond]: after.id } }] };
  }
  const rows = await db.videoJob.findMany({
    where: { workspaceId, AND: [live(), cursor] },
    orderBy: [{ createdAt: direction }, { id: direction }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit).map(toVideoObject);
  return { object: "list", data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > q.limit };
}

/** Deletes a finished job and its video. A job still rendering cannot be deleted (409). */
export async function deleteVideo(ctx: CallContext, id: string): Promise<{ id: string; object: "video.deleted"; deleted: true }> {
  const job = await findJob(ctx, id);
  if (job.status === "queued" || job.status === "in_progress") {
    throw new GatewayError({
      status: 409,
      code: "video_not_finished",
      param: "id",
      message: `Video job '${id}' is ${job.status}; it can be deleted once it is completed or failed.`,
    });
  }
  // The file first: a failed delete leaves the job (and the next DELETE retries), never an orphan.
  if (job.contentKey) await blobStore().delete(job.contentKey);
  const { count } = await db.videoJob.deleteMany({ where: { id, status: job.status } });
  if (count === 0) throw notFound(id);
  return { id, object: "video.deleted", deleted: true };
}
