// The dashboard's tRPC endpoint (/api/trpc): the same procedures as /v1, with the caller taken
// from the next-auth session cookie and the workspace from the `x-workspace-id` header.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getServerSession } from "next-auth";
import { authOptions } from "../auth/auth-options";
import { loadSessionUser, memberPrincipal } from "../auth/session-principal";
import { appRouter } from "../trpc/root";
import type { Context } from "../trpc/init";
import { newRequestId } from "./respond";

async function createContext(req: Request): Promise<Context> {
  const session = await getServerSession(authOptions);
  const user = await loadSessionUser((session?.user as { id?: string } | undefined)?.id);
  const principal = user ? await memberPrincipal(user, req.headers.get("x-workspace-id")) : null;
  return { requestId: newRequestId(), principal, user };
}

export function trpcHandler(req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createContext(req),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}
