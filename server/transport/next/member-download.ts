// The dashboard's downloads of stored bytes (a video, a file): the operation that serves them on
// /v1, run by the same pipeline function as the signed-in member of `?workspaceId=`, with Range
// passed on (the browser's <video> asks for ranges; a large file can be resumed) and
// `download=1` for an attachment. A non-member gets the same 404 as an unknown id (the operations
// look only within the workspace), so ids reveal nothing.
import type { AnyOperation } from "../../contract/operation";
import type { BinaryBody } from "../../kernel/binary-body";
import { errors } from "../../kernel/errors";
import { newRequestId } from "../../kernel/ids";
import { errorResponse } from "../error-adapter";
import { binaryResponse } from "./binary";
import { runAsMember } from "./dashboard-context";

type RouteContext = { params: Promise<{ id: string }> };

/** GET and HEAD handlers of a route `.../[id]/content` serving `op` with the input `inputOf` makes. */
export function memberDownload(op: AnyOperation, what: string, inputOf: (id: string, range: string | undefined) => Record<string, unknown>) {
  async function GET(req: Request, { params }: RouteContext): Promise<Response> {
    let requestId = newRequestId();
    try {
      const url = new URL(req.url);
      const workspaceId = url.searchParams.get("workspaceId");
      if (!workspaceId) throw errors.invalidRequest(`Name the workspace of the ${what}: ?workspaceId=<id>.`, "workspaceId", "invalid_value");
      const { id } = await params;
      const run = await runAsMember(workspaceId, op, inputOf(id, req.headers.get("range") ?? undefined));
      requestId = run.requestId;
      // Its length goes out as Content-Length under the production server (next/binary.ts).
      return binaryResponse(run.answer as BinaryBody, { "x-request-id": requestId }, { attachment: url.searchParams.get("download") === "1", hostLength: true });
    } catch (err) {
      return errorResponse(err, requestId);
    }
  }
  async function HEAD(req: Request, ctx: RouteContext): Promise<Response> {
    const res = await GET(req, ctx);
    // The stored bytes must not stay open for a request that wants only the headers.
    await res.body?.cancel();
    return new Response(null, { status: res.status, headers: res.headers });
  }
  return { GET, HEAD };
}
