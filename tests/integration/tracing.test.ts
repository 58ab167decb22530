// Traces, with an in-memory exporter in this process: a /v1 call through the dispatcher (as both
// hosts run it) is one server span, with children for authentication, the node call (over real
// HTTP to the test run's built-in node) and the usage write, the GenAI attributes and the request
// id; a caller's traceparent is continued. Without tracing configured, nothing is traced.
import { Readable } from "node:stream";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { stopTracing, traceTo, tracingOn } from "../../server/infra/telemetry/tracing";
import type { IncomingCall, Reply } from "../../server/transport/call";
import { dispatch, observeEnd } from "../../server/transport/dispatch";

const exporter = new InMemorySpanExporter();
let secret: string;

function call(path: string, body: unknown, headers: Record<string, string> = {}): IncomingCall {
  const all: Record<string, string> = { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers };
  return {
    method: "POST",
    path,
    query: new URLSearchParams(),
    header: (name) => all[name],
    body: () => Readable.from([Buffer.from(JSON.stringify(body))]),
    selfOrigin: () => "http://gateway.test",
  };
}

/** Answers a call as a host would: the whole answer, then the end of its observation. */
async function answer(c: IncomingCall): Promise<{ reply: Reply; text: string }> {
  const reply = await dispatch(c);
  let text = "";
  if (reply.kind === "json") text = reply.body;
  if (reply.kind === "sse") for await (const event of reply.events) text += event;
  observeEnd(reply);
  return { reply, text };
}

const childrenOf = (parent: ReadableSpan) => exporter.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

beforeAll(async () => {
  ({ apiKey: { secret } = { secret: "" } } = await createWorkspace({ name: "traced", credits: "5", withKey: true }));
});

afterAll(async () => {
  await stopTracing();
});

describe("tracing", () => {
  it("is off unless configured: a call makes no span", async () => {
    expect(tracingOn()).toBe(false);
    const { reply } = await answer(call("/v1/chat/completions", { model: "local-chat-sim", messages: [{ role: "user", content: "untraced" }] }));
    expect(reply.kind).toBe("json");
    await traceTo(exporter);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("makes one server span per request with authentication, node call and usage write as children", async () => {
    exporter.reset();
    const { reply, text } = await answer(call("/v1/chat/completions", { model: "local-chat-sim", messages: [{ role: "user", content: "trace me" }] }));
    const usage = (JSON.parse(text) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe("POST /v1/chat/completions");
    expect(server.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/v1/chat/completions",
      "http.response.status_code": 200,
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "local-chat-sim",
      "gen_ai.usage.input_tokens": usage.prompt_tokens,
      "gen_ai.usage.output_tokens": usage.completion_tokens,
      "gateway.request_id": reply.headers["x-request-id"],
      "gateway.credential": "api_key",
    });
    const children = childrenOf(server);
    expect(children.map((s) => s.name).sort()).toEqual(["POST /v1/chat/completions", "authenticate", "usage write"].sort());
    const nodeCall = children.find((s) => s.kind === SpanKind.CLIENT)!;
    expect(nodeCall.attributes["server.address"]).toBeTruthy();
    expect(String(nodeCall.attributes["url.full"])).toMatch(/\/chat\/completions$/);
    // Children end within their request. The exporter holds spans in the order they ended; their
    // timestamps cannot tell (the SDK anchors each span on its own millisecond Date.now()).
    const finished = exporter.getFinishedSpans();
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(server.spanContext().traceId);
      expect(finished.indexOf(child)).toBeLessThan(finished.indexOf(server));
    }
  });

  it("traces a stream to its end, and continues the caller's trace", async () => {
    exporter.reset();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    const { text } = await answer(
      call("/v1/chat/completions", { model: "local-chat-sim", messages: [{ role: "user", content: "stream" }], stream: true, stream_options: { include_usage: true } }, { traceparent }),
    );
    expect(text).toContain("usage");
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.spanContext().traceId).toBe(traceId);
    expect(server.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(Number(server.attributes["gen_ai.usage.output_tokens"])).toBeGreaterThan(0);
    expect(childrenOf(server).map((s) => s.name)).toEqual(expect.arrayContaining(["authenticate", "POST /v1/chat/completions", "usage write"]));
  });

  it("marks a refused call with its status, without node call or usage write", async () => {
    exporter.reset();
    await answer({ ...call("/v1/embeddings", { model: "local-embed-ngram", input: "x" }), header: (name) => (name === "authorization" ? "Bearer sk-gw-wrong" : undefined) });
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.attributes["http.response.status_code"]).toBe(401);
    expect(childrenOf(server).map((s) => s.name)).toEqual(["authenticate"]);
  });
});
