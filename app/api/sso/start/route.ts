import { callbackPath } from "@/app/(auth)/callback-path";
import { startSso } from "@/server/transport/next/sso-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = (req: Request) => startSso(req, callbackPath);
export const POST = (req: Request) => startSso(req, callbackPath);
