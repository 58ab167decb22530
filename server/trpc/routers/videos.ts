import { createVideo } from "../../inference/videos/create-video";
import { deleteVideo, getVideo, listVideos } from "../../inference/videos/manage-videos";
import { ZVideoContent, ZVideoCreate, ZVideoId, ZVideoList } from "../../inference/videos/schema";
import { videoContent } from "../../inference/videos/video-content";
import { apiKeyProcedure, billedProcedure, router } from "../init";

export const videosRouter = router({
  create: billedProcedure.input(ZVideoCreate).mutation(({ ctx, input }) => createVideo(ctx, input)),
  get: apiKeyProcedure.input(ZVideoId).query(({ ctx, input }) => getVideo(ctx, input.id)),
  list: apiKeyProcedure.input(ZVideoList).query(({ ctx, input }) => listVideos(ctx, input)),
  delete: billedProcedure.input(ZVideoId).mutation(({ ctx, input }) => deleteVideo(ctx, input.id)),
  content: apiKeyProcedure.input(ZVideoContent).query(({ ctx, input }) => videoContent(ctx, input)),
});
