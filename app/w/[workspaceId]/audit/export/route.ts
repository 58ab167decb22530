// GET /w/<workspace>/audit/export: the workspace's audit log as a CSV download, for owners and
// admins (the same procedure and permission as the Audit page).
import { dashboardCaller } from "@/server/transport/next/dashboard-context";
import { errorResponse } from "@/server/transport/error-adapter";
import { newRequestId } from "@/server/kernel/ids";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ workspaceId: string }> }): Promise<Response> {
  const { workspaceId } = await params;
  const query = new URL(req.url).searchParams;
  let requestId = newRequestId();
  try {
    const { caller, requestId: id } = await dashboardCaller(workspaceId);
    requestId = id;
    const filter = { action: query.get("action") || undefined, from: query.get("from") || undefined, to: query.get("to") || undefined };
    const { csv, rows, truncated } = await caller.audit.exportCsv(filter);
    return new Response(csv, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${`audit-${workspaceId}.csv`.replace(/[^\w.-]/g, "_")}"`,
        "cache-control": "no-store",
        "x-request-id": requestId,
        "x-audit-rows": String(rows),
        "x-audit-truncated": String(truncated),
      },
    });
  } catch (err) {
    return errorResponse(err, requestId);
  }
}
