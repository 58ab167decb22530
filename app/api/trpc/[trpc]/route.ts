import { trpcHandler } from "@/server/transport/next/trpc-handler";

export const dynamic = "force-dynamic";
export const GET = trpcHandler;
export const POST = trpcHandler;
