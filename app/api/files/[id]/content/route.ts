// A workspace's file for the dashboard's Download links (a batch's input, output and error files
// among them): the same operation as GET /v1/files/{file_id}/content, run by the same pipeline
// function as the signed-in member of `?workspaceId=`. Range is passed on, so a large file can be
// resumed. A non-member gets the same 404 as an unknown id (files.content looks only within the
// workspace), so ids reveal nothing.
import { binaryResponse } from "@/server/transport/next/binary";
import { runAsMember } from "@/server/transport/next/dashboard-context";
import { errorResponse } from "@/server/transport/error-adapter";
import { newRequestId } from "@/server/kernel/ids";
import { errors } from "@/server/kernel/errors";
import { contract } from "@/server/contract";
import type { AnyOperation } from "@/server/contract/operation";
import type { BinaryBody } from "@/server/kernel/binary-body";

export const dynamic = "force-dynamic";

type RouteContext = { params: Promise<{ id: string }> };

async function serveContent(req: Request, { params }: RouteContext): Promise<Response> {
  let requestId = newRequestId();
  try {
    const url = new URL(req.url);
    const workspaceId = url.searchParams.get("workspaceId");
    if (!workspaceId) throw errors.invalidRequest("Name the workspace of the file: ?workspaceId=<id>.", "workspaceId", "invalid_value");
    const { id } = await params;
    const run = await runAsMember(workspaceId, contract.files.content as AnyOperation, { file_id: id, range: req.headers.get("range") ?? undefined });
    requestId = run.requestId;
    const body = run.answer as BinaryBody;
    // Its length goes out as Content-Length under the production server (next/binary.ts).
    return binaryResponse(body, { "x-request-id": requestId }, { attachment: url.searchParams.get("download") === "1", hostLength: true });
  } catch (err) {
    return errorResponse(err, requestId);
  }
}

export const GET = serveContent;

export async function HEAD(req: Request, ctx: RouteContext): Promise<Response> {
  const res = await serveContent(req, ctx);
  // The stored file must not stay open for a request that wants only the headers.
  await res.body?.cancel();
  return new Response(null, { status: res.status, headers: res.headers });
}
