// Asynchronous video jobs: create (queued), poll, list, delete, download.
import { createVideo } from "../../inference/videos/create-video";
import { deleteVideo, getVideo, listVideos } from "../../inference/videos/manage-videos";
import { ZVideoContent, ZVideoCreate, ZVideoDeleted, ZVideoId, ZVideoJob, ZVideoList, ZVideoListPage } from "../../inference/videos/schema";
import { videoContent } from "../../inference/videos/video-content";
import { env } from "../../infra/env";
import { ERROR_RESPONSES } from "../errors";
import { operation } from "../operation";

export const videosCreate = operation({
  id: "videos.create",
  method: "POST",
  path: "/v1/videos",
  summary: "Create a video job (queued; JSON, or a multipart form as the OpenAI SDKs send it)",
  tags: ["Videos"],
  kind: "mutation",
  tier: "billed",
  permission: "videos",
  x402: "exact",
  body: { kind: "json_or_multipart", files: ["input_reference"], maxFileBytes: () => env.MAX_IMAGE_UPLOAD_BYTES },
  input: ZVideoCreate,
  output: ZVideoJob,
  produces: { kind: "json" },
  errors: { 404: "No such model (`model_not_found`)." },
  pricing: {
    kind: "upfront",
    unit: "video_seconds",
    note: "the requested seconds are reserved at create; settled on completion against the seconds rendered × fps ÷ 24 × per_video_second × the size's multiplier",
  },
  handler: (ctx, input) => createVideo(ctx, input),
});

export const videosList = operation({
  id: "videos.list",
  method: "GET",
  path: "/v1/videos",
  summary: "List video jobs",
  tags: ["Videos"],
  kind: "query",
  tier: "api_key",
  permission: "videos",
  body: { kind: "none" },
  query: true,
  input: ZVideoList,
  output: ZVideoListPage,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => listVideos(ctx, input),
});

export const videosGet = operation({
  id: "videos.get",
  method: "GET",
  path: "/v1/videos/{id}",
  summary: "Retrieve a video job",
  tags: ["Videos"],
  kind: "query",
  tier: "api_key",
  permission: "videos",
  x402: "read",
  body: { kind: "none" },
  input: ZVideoId,
  output: ZVideoJob,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => getVideo(ctx, input.id),
});

export const videosDelete = operation({
  id: "videos.delete",
  method: "DELETE",
  path: "/v1/videos/{id}",
  summary: "Delete a finished video job and its video",
  tags: ["Videos"],
  kind: "mutation",
  tier: "billed",
  permission: "videos",
  body: { kind: "none" },
  input: ZVideoId,
  output: ZVideoDeleted,
  produces: { kind: "json" },
  errors: { 409: "The job is still queued or rendering (`video_not_finished`)." },
  pricing: { kind: "free" },
  handler: (ctx, input) => deleteVideo(ctx, input.id),
});

export const videosContent = operation({
  id: "videos.content",
  method: "GET",
  path: "/v1/videos/{id}/content",
  summary: "Download a completed video (Range supported); 409 before completion",
  tags: ["Videos"],
  kind: "query",
  tier: "api_key",
  permission: "videos",
  x402: "read",
  body: { kind: "none" },
  query: true,
  headers: { range: "range" },
  input: ZVideoContent,
  produces: { kind: "binary", mediaTypes: ["video/mp4", "image/webp", "image/jpeg"] },
  errors: {
    409: "The job has not completed (`video_not_ready`): poll it until `completed`. Not charged.",
    416: ERROR_RESPONSES[416].description,
  },
  pricing: { kind: "free" },
  handler: (ctx, input) => videoContent(ctx, input),
});
