// The dashboard's tRPC endpoint (/api/trpc): the same procedures as /v1, with the caller taken
// from the next-auth session cookie and the workspace from the `x-workspace-id` header.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "../../trpc/root";
import { dashboardContext } from "./dashboard-context";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("http");

export function trpcHandler(req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => dashboardContext(req.headers.get("x-workspace-id")),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") log.error({ err: error.cause ?? error }, `tRPC ${path ?? "?"} failed`);
    },
  });
}
