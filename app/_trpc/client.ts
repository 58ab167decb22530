"use client";
// The dashboard's tRPC hooks (TanStack Query). Types only come from the server: no server code
// reaches the browser.
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/root";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
