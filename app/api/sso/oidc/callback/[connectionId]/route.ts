import { oidcCallbackRoute } from "@/server/transport/next/sso-routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export async function GET(req: Request, { params }: { params: Promise<{ connectionId: string }> }) {
  return oidcCallbackRoute(req, (await params).connectionId);
}
