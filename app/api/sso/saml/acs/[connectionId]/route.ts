import { callbackPath } from "@/app/(auth)/callback-path";
import { samlAcsRoute } from "@/server/transport/next/sso-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export async function POST(req: Request, { params }: { params: Promise<{ connectionId: string }> }) {
  return samlAcsRoute(req, (await params).connectionId, callbackPath);
}
