// The dashboard's tRPC endpoint (/api/trpc): the same procedures as /v1, with the caller taken
// from the next-auth session cookie and the workspace from the `x-workspace-id` header.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "../../trpc/root";
import { dashboardContext } from "./dashboard-context";

export function trpcHandler(req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => dashboardContext(req.headers.get("x-workspace-id")),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}
