// A tool call as a request-log row: the route (`/mcp/tools/call`, or the responses API's
// `mcp_call`), the tool's qualified name in the model column, its server's id in the node column,
// status, duration and cost; its arguments and result only when the caller's workspace (or key)
// captures bodies, redacted by the capture's patterns. The row is written to the spool at once, in
// the turn the call ends (one write(2), a few microseconds), before its answer goes out: a process
// killed right after answering has lost no row, and the answer waits for no later turn.
import { captureFor } from "../../identity/plans/plan-cache";
import { env } from "../../infra/env";
import { BodyCapture } from "../../request-log/capture/body-capture";
import { policyOf } from "../../request-log/capture/policy";
import type { RequestLogRow } from "../../request-log/log-row";
import { requestLogWriter } from "../../request-log/log-writer";
import type { McpServerEntry } from "../server-def";
import type { ToolCaller } from "./tool-caller";

export const TOOL_ROUTES = { mcp: "/mcp/tools/call", responses: "/v1/responses/mcp_call" } as const;

export type ToolLogEntry = {
  caller: ToolCaller;
  requestId: string;
  createdAt: Date;
  name: string;
  server: McpServerEntry | null;
  status: number;
  errorCode: string | null;
  durationMs: number;
  cost: string | null;
  args: unknown;
  result: unknown;
  /** The wallet that paid (x402). */
  payer?: string;
};

export async function logToolCall(e: ToolLogEntry): Promise<void> {
  if (env.REQUEST_LOG !== "on") return;
  const p = e.caller.principal;
  const route = TOOL_ROUTES[e.caller.via];
  const settings = await captureFor(p).catch(() => null);
  let body = null;
  if (settings) {
    const capture = new BodyCapture(policyOf(settings), route);
    capture.request(e.args ?? {});
    if (e.result !== undefined) capture.json(JSON.stringify(e.result));
    body = capture.finish();
  }
  const row: RequestLogRow = {
    id: e.requestId,
    createdAt: e.createdAt.toISOString(),
    workspaceId: p.workspaceId,
    method: "POST",
    route,
    model: e.name,
    nodeId: e.server?.id ?? null,
    credential: p.kind,
    apiKeyId: p.keyId,
    planId: p.kind === "api_key" || p.kind === "session" ? p.planId : null,
    subject: p.kind === "session" ? p.subject : null,
    payer: e.payer ?? null,
    status: e.status,
    errorCode: e.errorCode,
    durationMs: e.durationMs,
    upstreamMs: null,
    firstByteMs: null,
    inputTokens: 0,
    outputTokens: 0,
    cost: e.cost,
    usageEstimated: false,
    cache: null,
    tags: null,
    clientIp: e.caller.clientIp ?? null,
    userAgent: e.caller.userAgent ?? null,
    body,
  };
  requestLogWriter().record(row, true);
}
