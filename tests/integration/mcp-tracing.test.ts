// A tool call through /mcp, traced: a client span `mcp tools/call <server>__<tool>` whose trace
// the tool server continues (its request carries the span's traceparent), and the metrics count it.
import { Readable } from "node:stream";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActor } from "../../server/audit/actor";
import { processMetrics } from "../../server/infra/telemetry/metrics";
import { stopTracing, traceTo } from "../../server/infra/telemetry/tracing";
import { addServer } from "../../server/mcp/registry/registry-store";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import type { IncomingCall, Reply } from "../../server/transport/call";
import { serveMcp } from "../../server/transport/mcp/mcp-http";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";

const exporter = new InMemorySpanExporter();
let secret: string;
let standIn: StandInMcpServer;

function call(body: unknown, headers: Record<string, string> = {}): IncomingCall {
  const all: Record<string, string> = { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
  return {
    method: "POST",
    path: "/mcp",
    query: new URLSearchParams(),
    header: (name) => all[name],
    body: () => Readable.from([Buffer.from(JSON.stringify(body))]),
    selfOrigin: () => "http://gateway.test",
  };
}

const json = (reply: Reply) => (reply.kind === "json" ? (JSON.parse(reply.body) as { result?: Record<string, unknown>; error?: unknown }) : null);

beforeAll(async () => {
  standIn = await startStandInMcpServer();
  const created = await createWorkspace({ name: "mcp traced", credits: "5", withKey: true });
  secret = created.apiKey!.secret;
  await addServer(cliActor(), created.workspace.id, { name: "kit", url: standIn.url });
  await traceTo(exporter);
});

afterAll(async () => {
  await stopTracing();
  await standIn.close();
});

describe("/mcp tool calls in traces and metrics", () => {
  it("a client span around the hop, continued by the tool server; counted in gateway_mcp_tool_calls_total", async () => {
    const init = await serveMcp(call({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }));
    const session = init.headers["mcp-session-id"]!;
    expect(session).toMatch(/^mcpsess_/);
    exporter.reset();
    const reply = await serveMcp(call({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "kit__echo", arguments: { text: "traced" } } }, { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }));
    expect(json(reply)?.result).toMatchObject({ content: [{ type: "text", text: "traced" }] });
    const span = exporter.getFinishedSpans().find((s) => s.name === "mcp tools/call kit__echo")!;
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({ "gen_ai.tool.name": "kit__echo" });
    const traceparent = String(standIn.calls.at(-1)!.headers.traceparent);
    expect(traceparent).toContain(span.spanContext().traceId);
    expect(traceparent).toContain(span.spanContext().spanId);
    expect(await processMetrics()).toMatch(/gateway_mcp_tool_calls_total\{via="mcp",outcome="ok"\} [1-9]/);
  });
});
