import { createCallerFactory, router, type Context } from "./init";
import { accountRouter } from "./routers/account";
import { audioRouter } from "./routers/audio";
import { chatRouter } from "./routers/chat";
import { embeddingsRouter } from "./routers/embeddings";
import { healthRouter } from "./routers/health";
import { imagesRouter } from "./routers/images";
import { modelsRouter } from "./routers/models";
import { networkRouter } from "./routers/network";
import { responsesRouter } from "./routers/responses";
import { videosRouter } from "./routers/videos";
import { billingRouter } from "./routers/billing";
import { keysRouter } from "./routers/keys";
import { nodesRouter } from "./routers/nodes";
import { playgroundRouter } from "./routers/playground";
import { usageRouter } from "./routers/usage";
import { workspacesRouter } from "./routers/workspaces";

export const appRouter = router({
  account: accountRouter,
  audio: audioRouter,
  chat: chatRouter,
  embeddings: embeddingsRouter,
  health: healthRouter,
  images: imagesRouter,
  models: modelsRouter,
  network: networkRouter,
  responses: responsesRouter,
  videos: videosRouter,
  billing: billingRouter,
  keys: keysRouter,
  nodes: nodesRouter,
  playground: playgroundRouter,
  usage: usageRouter,
  workspaces: workspacesRouter,
});
export type AppRouter = typeof appRouter;

const factory = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof factory>;
export const createCaller = (ctx: Context): Caller => factory(ctx);
