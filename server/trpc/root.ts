import { createCallerFactory, router, type Context } from "./init";
import { audioRouter } from "./routers/audio";
import { chatRouter } from "./routers/chat";
import { embeddingsRouter } from "./routers/embeddings";
import { healthRouter } from "./routers/health";
import { imagesRouter } from "./routers/images";
import { modelsRouter } from "./routers/models";
import { networkRouter } from "./routers/network";
import { responsesRouter } from "./routers/responses";
import { videosRouter } from "./routers/videos";

export const appRouter = router({
  audio: audioRouter,
  chat: chatRouter,
  embeddings: embeddingsRouter,
  health: healthRouter,
  images: imagesRouter,
  models: modelsRouter,
  network: networkRouter,
  responses: responsesRouter,
  videos: videosRouter,
});
export type AppRouter = typeof appRouter;

const factory = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof factory>;
export const createCaller = (ctx: Context): Caller => factory(ctx);
