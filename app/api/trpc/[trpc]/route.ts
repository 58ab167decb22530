import { trpcHandler } from "@/server/http/trpc-handler";

export const dynamic = "force-dynamic";
export const GET = trpcHandler;
export const POST = trpcHandler;
