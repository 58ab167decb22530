// GET /v1/videos/{id}/content: the stored mp4, whole or by HTTP Range. Before the job completed
// it is a 409, which costs nothing (only a completed render is ever billed).
import type { CallContext } from "../../identity/principal";
import type { BinaryBody } from "../../kernel/binary-body";
import { errors, GatewayError } from "../../kernel/errors";
import { blobBody } from "../../infra/storage/blob-body";
import { findJob } from "./manage-videos";
import type { VideoContentRequest } from "./schema";

export async function videoContent(ctx: CallContext, req: VideoContentRequest): Promise<BinaryBody> {
  const job = await findJob(ctx, req.id);
  if (job.status !== "completed") {
    throw new GatewayError({
      status: 409,
      code: "video_not_ready",
      param: "id",
      message:
        job.status === "failed"
          ? `Video job '${job.id}' failed; it has no content.`
          : `Video job '${job.id}' is ${job.status}. Poll GET /v1/videos/${job.id} until its status is completed, then download.`,
    });
  }
  if (req.variant !== "video") {
    throw errors.invalidRequest(`Only the \`video\` variant is available; \`${req.variant}\` is not generated.`, "variant", "invalid_value");
  }
  const missing = () => errors.notFound(`No video found for id '${job.id}'.`, "video_not_found", "id");
  if (!job.contentKey) throw missing();
  return blobBody(job.contentKey, req.range, { contentType: "video/mp4", filename: `${job.id}.mp4`, what: "video", missing });
}
