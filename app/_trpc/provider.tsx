"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import type { ReactNode } from "react";
import { useState } from "react";
import type { AppRouter } from "@/server/trpc/root";
import { TRPCProvider } from "./client";

/**
 * tRPC + TanStack Query for one workspace: every call carries `x-workspace-id`, and each
 * workspace gets its own query cache (the provider is keyed by the id), so switching workspaces
 * can never show another workspace's cached data.
 */
export function ApiProvider({ workspaceId, children }: { workspaceId: string | null; children: ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: false } } }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        httpBatchStreamLink({
          url: "/api/trpc",
          headers: () => (workspaceId ? { "x-workspace-id": workspaceId } : {}),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
