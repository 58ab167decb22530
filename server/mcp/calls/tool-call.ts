// One call of a registered server's tool, for /mcp and for the responses API's `mcp` tool alike:
// the tool allowed to the caller, its price held through the ledger like a model call's (its
// rate limits and caps first), the call at the server, then the charge (a failed call, or one
// whose result is an error, is free and its hold released), a request-log row (server, tool,
// status, duration, cost; arguments and result only when the workspace captures bodies,
// redacted), metrics, and a span around the hop.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { admitFree, admitSpend } from "../../admission/admit";
import type { Principal } from "../../identity/principal";
import { env } from "../../infra/env";
import { metrics } from "../../infra/telemetry/metrics";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { tracer, tracingOn } from "../../infra/telemetry/tracing";
import { GatewayError } from "../../kernel/errors";
import type { CallContext } from "../../kernel/call-context";
import { newRequestId } from "../../kernel/ids";
import { money } from "../../kernel/money";
import { recordCall, release, type Metering } from "../../ledger/meter";
import { serverNamed } from "../registry/registry-cache";
import { qualifiedName, splitQualified, toolPrice, type McpServerEntry } from "../server-def";
import { withUpstream, type SessionStore } from "../upstream/upstream-pool";
import { logToolCall } from "./tool-log";
import type { ToolCaller } from "./tool-caller";

export type { ToolCaller };
import { toolFilterFor, toolNotAllowed, unknownTool } from "./tool-access";
import { paymentRequiredResult, withPaymentResponse, x402Metering } from "./tool-payment";

export type ToolCallDone = { result: CallToolResult; requestId: string; cost: string | null; server: McpServerEntry; tool: string };

/** Finds the server and tool a qualified name stands for, checked against what the caller may use. */
export async function resolveTool(caller: Pick<ToolCaller, "principal">, name: string): Promise<{ server: McpServerEntry; tool: string }> {
  const split = splitQualified(name);
  const server = split && (await serverNamed(caller.principal.workspaceId, split.server));
  // A tool its server did not list when last asked is unknown (`mcp list --refresh` asks again).
  if (!split || !server || (server.catalog && !server.catalog.tools.some((t) => t.name === split.tool))) throw unknownTool(name);
  if (!(await toolFilterFor(caller.principal))(name)) throw toolNotAllowed(name);
  return { server, tool: split.tool };
}

async function admitTool(ctx: CallContext<Principal>, caller: ToolCaller, name: string, price: string | null, payment: unknown): Promise<{ metering: Metering | null; endFree: (() => void) | null }> {
  if (!price) return { metering: null, endFree: await admitFree(ctx) };
  if (ctx.principal.kind === "x402") return { metering: await x402Metering(ctx, name, price, payment), endFree: null };
  // A key at its spend limit may list tools, not buy them (its record is cached: no round trip).
  await caller.checkSpend?.();
  const metering = await admitSpend(ctx, { endpoint: "mcp.tools", model: null, maxCost: money(price) });
  return { metering, endFree: null };
}

function withSpan<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return work();
  return tracer().startActiveSpan(`mcp tools/call ${name}`, { kind: SpanKind.CLIENT, attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": name } }, (span) =>
    work().then(
      (value) => (span.end(), value),
      (err: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        span.end();
        throw err;
      },
    ),
  );
}

/**
 * Calls `name` (`<server>__<tool>`) with `args`. Throws a GatewayError when the call is refused
 * (404 unknown tool, 403 not allowed, 402, 429) or the server could not be reached (502, 504),
 * and the MCP error the server answered (McpError); a result with `isError` is returned (free).
 */
export function callTool(caller: ToolCaller, name: string, args: Record<string, unknown> | undefined, payment?: unknown): Promise<ToolCallDone> {
  return runToolCall(caller, name, args, payment, () => resolveTool(caller, name));
}

/**
 * Calls `tool` of `server` as `label__tool` (the responses API's `mcp` tool: a registered server
 * by its label, or one named by URL that the workspace allows): the caller's tool list applies to
 * that name, and the server's prices, as on /mcp.
 */
export function callServerTool(caller: ToolCaller, server: McpServerEntry, tool: string, args: Record<string, unknown> | undefined, payment?: unknown): Promise<ToolCallDone> {
  const name = qualifiedName(server.name, tool);
  return runToolCall(caller, name, args, payment, async () => {
    if (!(await toolFilterFor(caller.principal))(name)) throw toolNotAllowed(name);
    return { server, tool };
  });
}

async function runToolCall(
  caller: ToolCaller,
  name: string,
  args: Record<string, unknown> | undefined,
  payment: unknown,
  resolve: () => Promise<{ server: McpServerEntry; tool: string }>,
): Promise<ToolCallDone> {
  const startedAt = performance.now();
  const createdAt = new Date();
  const requestId = newRequestId();
  const ctx: CallContext<Principal> = { principal: caller.principal, requestId, outcome: {} };
  const m = metrics();
  const log = (status: number, errorCode: string | null, cost: string | null, result?: unknown, server?: McpServerEntry, payer?: string) =>
    logToolCall({ caller, requestId, createdAt, name, server: server ?? null, status, errorCode, durationMs: performance.now() - startedAt, cost, args, result, payer });
  let admitted: Awaited<ReturnType<typeof admitTool>> | null = null;
  let target: { server: McpServerEntry; tool: string } | null = null;
  try {
    target = await resolve();
    const price = toolPrice(target.server, target.tool);
    admitted = await admitTool(ctx, caller, name, price, payment);
    const { server, tool } = target;
    const result = (await withSpan(name, () =>
      withUpstream(server, caller.holder, caller.store, (u) => u.callTool({ name: tool, arguments: args ?? {} }, env.MCP_TOOL_TIMEOUT_MS)),
    )) as CallToolResult;
    m.mcpToolDuration.observe({ via: caller.via }, (performance.now() - startedAt) / 1000);
    if (result.isError || !admitted.metering || !price) {
      if (admitted.metering) release(admitted.metering);
      admitted.endFree?.();
      m.mcpToolCalls.inc({ via: caller.via, outcome: result.isError ? "tool_error" : "ok" });
      await log(200, result.isError ? "tool_error" : null, null, result, server);
      return { result, requestId, cost: null, server, tool };
    }
    await recordCall(admitted.metering, { modelId: `mcp:${name}`, nodeId: null, started: startedAt }, { cost: money(price) });
    m.mcpToolCalls.inc({ via: caller.via, outcome: "ok" });
    const cost = money(price).toFixed();
    await log(200, null, cost, result, server, ctx.outcome.payment?.payer);
    return { result: withPaymentResponse(result, ctx), requestId, cost, server, tool };
  } catch (err) {
    if (admitted?.metering) release(admitted.metering);
    admitted?.endFree?.();
    // An x402 caller without a payment (or with one refused) is told what the call accepts, in a tool result.
    const asked = paymentRequiredResult(err);
    if (asked && target) {
      m.mcpToolCalls.inc({ via: caller.via, outcome: "refused" });
      await log(402, (err as GatewayError).code, null, undefined, target.server);
      return { result: asked, requestId, cost: null, server: target.server, tool: target.tool };
    }
    const status = err instanceof GatewayError ? err.status : 502;
    m.mcpToolCalls.inc({ via: caller.via, outcome: status >= 500 ? "unavailable" : status < 500 && err instanceof GatewayError ? "refused" : "tool_error" });
    await log(err instanceof GatewayError ? err.status : 200, err instanceof GatewayError ? err.code : "mcp_error", null, undefined, target?.server);
    throw err;
  }
}
