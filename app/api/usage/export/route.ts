// GET /api/usage/export?workspaceId=&from=&to=&keyId=&planId=&subject= : the usage events of a filter as a CSV
// download, for the signed-in member (the same procedure and permission as the usage page).
import { dashboardCaller } from "@/server/transport/next/dashboard-context";
import { errorResponse } from "@/server/transport/error-adapter";
import { newRequestId } from "@/server/kernel/ids";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  const params = new URL(req.url).searchParams;
  const workspaceId = params.get("workspaceId");
  let requestId = newRequestId();
  try {
    const { caller, requestId: id } = await dashboardCaller(workspaceId);
    requestId = id;
    const filter = {
      from: params.get("from") || undefined,
      to: params.get("to") || undefined,
      apiKeyId: params.get("keyId") || undefined,
      planId: params.get("planId") || undefined,
      subject: params.get("subject") || undefined,
      tag: params.get("tag") || undefined,
    };
    const { csv, rows, truncated } = await caller.usage.exportCsv(filter);
    const name = `usage-${workspaceId}-${filter.from ?? "start"}-${filter.to ?? "today"}.csv`.replace(/[^\w.-]/g, "_");
    return new Response(csv, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
        "x-request-id": requestId,
        "x-usage-rows": String(rows),
        "x-usage-truncated": String(truncated),
      },
    });
  } catch (err) {
    return errorResponse(err, requestId);
  }
}
