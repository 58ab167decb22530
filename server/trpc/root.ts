// The one tRPC router: the /v1 procedures made from the contract, and the dashboard's own.
import { contract } from "../contract";
import { contractRouter } from "./contract-procedures";
import { createCallerFactory, router, type Context } from "./init";
import { accountRouter } from "./routers/account";
import { auditRouter } from "./routers/audit";
import { billingRouter } from "./routers/billing";
import { cacheRouter } from "./routers/cache";
import { fineTuningMoneyRouter } from "./routers/fine-tuning";
import { guardrailsRouter } from "./routers/guardrails";
import { keysRouter } from "./routers/keys";
import { logsRouter } from "./routers/logs";
import { mcpRouter } from "./routers/mcp";
import { nodesRouter } from "./routers/nodes";
import { plansRouter } from "./routers/plans";
import { playgroundRouter } from "./routers/playground";
import { usageRouter } from "./routers/usage";
import { webhooksRouter } from "./routers/webhooks";
import { routesRouter } from "./routers/routes";
import { rolesRouter } from "./routers/roles";
import { scimRouter } from "./routers/scim";
import { ssoRouter } from "./routers/sso";
import { workspacesRouter } from "./routers/workspaces";
import { x402Router } from "./routers/x402";

export const appRouter = router({
  chat: contractRouter(contract.chat),
  responses: contractRouter(contract.responses),
  messages: contractRouter(contract.messages),
  embeddings: contractRouter(contract.embeddings),
  audio: contractRouter(contract.audio),
  images: contractRouter(contract.images),
  videos: contractRouter(contract.videos),
  conversations: contractRouter(contract.conversations),
  moderations: contractRouter(contract.moderations),
  files: contractRouter(contract.files),
  batches: contractRouter(contract.batches),
  fineTuning: contractRouter(contract.fineTuning),
  models: contractRouter(contract.models),
  sessions: contractRouter(contract.sessions),
  network: contractRouter(contract.network),
  health: contractRouter(contract.health),
  openapi: contractRouter(contract.openapi),
  account: accountRouter,
  audit: auditRouter,
  billing: billingRouter,
  cache: cacheRouter,
  fineTuningMoney: fineTuningMoneyRouter,
  guardrails: guardrailsRouter,
  keys: keysRouter,
  logs: logsRouter,
  mcp: mcpRouter,
  nodes: nodesRouter,
  plans: plansRouter,
  playground: playgroundRouter,
  usage: usageRouter,
  webhooks: webhooksRouter,
  routes: routesRouter,
  roles: rolesRouter,
  scim: scimRouter,
  sso: ssoRouter,
  workspaces: workspacesRouter,
  x402: x402Router,
});
export type AppRouter = typeof appRouter;

const factory = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof factory>;
export const createCaller = (ctx: Context): Caller => factory(ctx);
