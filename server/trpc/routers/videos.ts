import { createVideo } from "../../videos/create-video";
import { deleteVideo, getVideo, listVideos } from "../../videos/manage-videos";
import { ZVideoContent, ZVideoCreate, ZVideoId, ZVideoList } from "../../videos/schema";
import { videoContent } from "../../videos/video-content";
import { apiKeyProcedure, billedProcedure, router } from "../init";

export const videosRouter = router({
  create: billedProcedure.input(ZVideoCreate).mutation(({ ctx, input }) => createVideo(ctx, input)),
  get: apiKeyProcedure.input(ZVideoId).query(({ ctx, input }) => getVideo(ctx, input.id)),
  list: apiKeyProcedure.input(ZVideoList).query(({ ctx, input }) => listVideos(ctx, input)),
  delete: billedProcedure.input(ZVideoId).mutation(({ ctx, input }) => deleteVideo(ctx, input.id)),
  content: apiKeyProcedure.input(ZVideoContent).query(({ ctx, input }) => videoContent(ctx, input)),
});
