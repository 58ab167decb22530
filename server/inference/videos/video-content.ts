// GET /v1/videos/{id}/content: the stored mp4, whole or by HTTP Range. Before the job completed
// it is a 409, which costs nothing (only a completed render is ever billed).
import type { CallContext } from "../../identity/principal";
import { BinaryBody } from "../../kernel/binary-body";
import { errors, GatewayError } from "../../kernel/errors";
import { blobStore } from "../../infra/storage/blob-store";
import { parseRange } from "../../infra/storage/byte-range";
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
  const store = blobStore();
  const info = job.contentKey ? await store.head(job.contentKey) : null;
  if (!info) throw errors.notFound(`No video found for id '${job.id}'.`, "video_not_found", "id");
  const range = parseRange(req.range, info.size);
  if (range === "unsatisfiable") {
    throw new GatewayError({
      status: 416,
      code: "range_not_satisfiable",
      param: "range",
      message: `The requested range is outside the video's ${info.size} bytes.`,
      detail: { contentSize: info.size },
    });
  }
  const body = await store.stream(job.contentKey!, range ?? undefined);
  if (!body) throw errors.notFound(`No video found for id '${job.id}'.`, "video_not_found", "id");
  return new BinaryBody(
    body,
    "video/mp4",
    {
      length: range ? range.end - range.start + 1 : info.size,
      range: range ? { ...range, size: info.size } : undefined,
      filename: `${job.id}.mp4`,
      acceptsRanges: true,
    },
    { status: range ? 206 : 200, drain: false },
  );
}
