// A gateway process stopped with SIGTERM drains: it refuses new connections at once, closes idle
// keep-alive connections, lets calls and streams in flight finish for up to SHUTDOWN_DRAIN_MS,
// then ends a stream still open with a server_shutting_down error frame and [DONE], fails a
// background response still running (uncharged), and exits.
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { freePort } from "../../server/infra/net/free-port";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkNode } from "../../server/routing/nodes/health-check";
import { addNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { newWorkspace, until } from "../helpers";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { sseFrames } from "../sse-frames";

const MODEL = "test-shutdown-chat";
const DRAIN_MS = 3000;
const USAGE = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };

/**
 * A node whose answers take as long as the last message asks: `stream 1500` streams a delta every
 * 100 ms for 1.5 s, `wait 1000` answers (not streamed) after 1 s, `hang` never answers.
 */
async function startPacedNode(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === "/v1/models") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: MODEL, object: "model" }] }));
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      const request = JSON.parse(body) as { stream?: boolean; messages: { content: string }[] };
      const [verb, arg] = String(request.messages.at(-1)?.content ?? "").split(" ");
      if (verb === "hang") return;
      const base = { id: "chatcmpl-paced", created: 1, model: MODEL };
      if (!request.stream) {
        await new Promise((r) => setTimeout(r, Number(arg ?? 0)));
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }], usage: USAGE }));
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }));
      for (let t = 0; t < Number(arg ?? 0) && !res.destroyed; t += 100) {
        await new Promise((r) => setTimeout(r, 100));
        res.write(chunk({ content: "w " }));
      }
      res.write(chunk({}, "stop"));
      res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage: USAGE })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

type Frame = { at: number; data: string };
type StreamSeen = { status: number; requestId: string | null; frames: Frame[]; endedAt: number; brokenOff: string | null };

/** A streamed chat call, every frame with the time it arrived; `first` resolves on the first frame. */
function streamCall(url: string, secret: string, content: string): { first: Promise<void>; done: Promise<StreamSeen> } {
  let firstFrame!: () => void;
  const first = new Promise<void>((r) => (firstFrame = r));
  const done = (async () => {
    const seen: StreamSeen = { status: 0, requestId: null, frames: [], endedAt: 0, brokenOff: null };
    try {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: "user", content }] }),
      });
      seen.status = res.status;
      seen.requestId = res.headers.get("x-request-id");
      for await (const frame of sseFrames(res.body!)) {
        seen.frames.push({ at: Date.now(), data: frame.raw.replace(/^data: /, "") });
        firstFrame();
      }
    } catch (err) {
      seen.brokenOff = String((err as { cause?: unknown }).cause ?? err);
    }
    seen.endedAt = Date.now();
    firstFrame();
    return seen;
  })();
  return { first, done };
}

let instance: GatewayInstance;
/** The same with two processes (WEB_CONCURRENCY=2). */
let clustered: GatewayInstance;
let node: Awaited<ReturnType<typeof startPacedNode>>;

beforeAll(async () => {
  const env = { SHUTDOWN_DRAIN_MS: String(DRAIN_MS), UPSTREAM_FIRST_BYTE_TIMEOUT_MS: "60000" };
  [instance, clustered, node] = await Promise.all([startGatewayInstance({ env }), startGatewayInstance({ env: { ...env, WEB_CONCURRENCY: "2" } }), startPacedNode()]);
  await db.model.create({ data: cardToRow(chatModelCard(MODEL)) });
  const { node: row } = await addNode({ name: `shutdown-${Math.random().toString(36).slice(2, 8)}`, url: node.url, city: "Lyon", country: "FR" });
  await checkNode({ id: row.id, baseUrl: node.url, apiKeyEncrypted: null, status: "unknown" });
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  await Promise.all([instance?.kill(), clustered?.kill()]);
  await db.node.deleteMany({ where: { baseUrl: node?.url } });
  await db.model.deleteMany({ where: { id: MODEL } });
  await notify(db, Channel.nodesChanged);
  await notify(db, Channel.catalogChanged);
  await node?.close();
});

/** Waits until the instance routes to the paced node. */
async function routed(url: string, secret: string): Promise<void> {
  const ready = await until(
    async () => (await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "wait 0" }] }) })).status,
    (s) => s === 200,
    10_000,
  );
  expect(ready.value).toBe(200);
}

/** The last two frames of a stream cut by the shutdown: the error, then [DONE]; returns when the error came. */
function expectCutByShutdown(seen: StreamSeen): number {
  expect(seen.status).toBe(200);
  expect(seen.brokenOff).toBeNull();
  const [last, beforeLast] = [seen.frames.at(-1)!, seen.frames.at(-2)!];
  expect(last.data).toBe("[DONE]");
  expect(JSON.parse(beforeLast.data)).toEqual({ error: { code: "server_shutting_down", type: "server_error", param: null, message: expect.any(String) } });
  return beforeLast.at;
}

describe("SIGTERM", () => {
  it("drains: in-flight calls finish, a stream open at the deadline gets an error frame and [DONE], new connections are refused, and the process exits", async () => {
    const { secret, workspace } = await newWorkspace("1", "shutdown");
    await routed(instance.url, secret);

    // An idle keep-alive connection, a stream that ends before the deadline, one that does not,
    // a plain call that takes a second, and a background response that never ends.
    const idle = connect(Number(new URL(instance.url).port), "127.0.0.1");
    const idleClosed = new Promise<number>((r) => idle.once("close", () => r(Date.now())));
    idle.on("error", () => undefined);
    idle.write("GET /health HTTP/1.1\r\nhost: x\r\n\r\n");
    await new Promise((r) => idle.once("data", r));
    const short = streamCall(instance.url, secret, "stream 1500");
    const long = streamCall(instance.url, secret, "stream 20000");
    await Promise.all([short.first, long.first]);
    const plain = fetch(`${instance.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "wait 1000" }] }),
    });
    const created = await fetch(`${instance.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, input: "hang", background: true }),
    });
    expect(created.status).toBe(200);
    const background = (await created.json()) as { id: string };
    await until(() => db.storedResponse.findUnique({ where: { id: background.id } }), (r) => r?.status === "in_progress", 5000);
    await new Promise((r) => setTimeout(r, 100)); // the plain call reached the node

    const signalledAt = Date.now();
    instance.child.proc.kill("SIGTERM");
    const exited = instance.child.exited.then((code) => ({ code, at: Date.now() }));

    // (c) The listening socket is closed at once: a new connection is refused.
    await new Promise((r) => setTimeout(r, 300));
    const refused = await fetch(`${instance.url}/health`).then(
      () => "answered",
      (err: { cause?: { code?: string } }) => err.cause?.code ?? String(err),
    );
    expect(refused).toBe("ECONNREFUSED");
    // Idle keep-alive connections are closed at once.
    expect((await idleClosed) - signalledAt).toBeLessThan(1000);

    // (a) Calls in flight that end before the deadline end normally.
    const plainAnswer = await plain;
    expect(plainAnswer.status).toBe(200);
    expect(((await plainAnswer.json()) as { choices: unknown[] }).choices).toHaveLength(1);
    const shortSeen = await short.done;
    expect(shortSeen.brokenOff).toBeNull();
    expect(shortSeen.frames.at(-1)?.data).toBe("[DONE]");
    expect(shortSeen.frames.some((f) => f.data.includes('"error"'))).toBe(false);
    expect(shortSeen.endedAt - signalledAt).toBeLessThan(DRAIN_MS);

    // (b) A stream still open at the deadline: an error frame, then [DONE], then the connection closes.
    const longSeen = await long.done;
    const cutAt = expectCutByShutdown(longSeen);
    expect(cutAt - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    expect(cutAt - signalledAt).toBeLessThan(DRAIN_MS + 1500);
    expect(longSeen.frames.filter((f) => f.data.includes('"delta"')).length).toBeGreaterThan(10);

    // (d) The process exits, with status 0, within the drain time and a small margin.
    const exit = await exited;
    console.log(
      `after SIGTERM: idle connection closed, short stream ended at ${shortSeen.endedAt - signalledAt} ms, ` +
        `long stream cut at ${cutAt - signalledAt} ms, process exited at ${exit.at - signalledAt} ms (drain ${DRAIN_MS} ms)`,
    );
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeLessThan(DRAIN_MS + 3000);

    // The background response still running was failed, and costs nothing; the calls that
    // finished were billed once each; the cut stream was not billed.
    const stored = await db.storedResponse.findUniqueOrThrow({ where: { id: background.id } });
    expect(stored.status).toBe("failed");
    expect((stored.error as { code: string }).code).toBe("background_interrupted");
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    const billed = new Set(events.map((e) => e.id));
    expect(billed.has(background.id)).toBe(false);
    expect(billed.has(shortSeen.requestId!)).toBe(true);
    expect(billed.has(plainAnswer.headers.get("x-request-id")!)).toBe(true);
    expect(billed.has(longSeen.requestId!)).toBe(false);
    expect(events).toHaveLength(3); // the readiness call, the plain call, the short stream
  }, 60_000);

  it("with two processes, the first waits for the other to drain before it exits", async () => {
    const { secret } = await newWorkspace("1", "shutdown cluster");
    // Connections are handed out in turn once the second process is ready: the two streams are served one by each.
    await until(async () => clustered.output(), (text) => /\(process 1\) ready/.test(text), 20_000);
    await routed(clustered.url, secret);
    const short = streamCall(clustered.url, secret, "stream 1000");
    const long = streamCall(clustered.url, secret, "stream 20000");
    await Promise.all([short.first, long.first]);
    const signalledAt = Date.now();
    clustered.child.proc.kill("SIGTERM"); // the first process
    const exited = clustered.child.exited.then((code) => ({ code, at: Date.now() }));
    const shortSeen = await short.done;
    expect(shortSeen.frames.at(-1)?.data).toBe("[DONE]");
    expect(shortSeen.frames.some((f) => f.data.includes('"error"'))).toBe(false);
    const cutAt = expectCutByShutdown(await long.done);
    expect(cutAt - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    const exit = await exited;
    expect(exit.code).toBe(0);
    expect(exit.at).toBeGreaterThanOrEqual(cutAt);
    expect(exit.at - signalledAt).toBeLessThan(DRAIN_MS + 3000);
  }, 60_000);
});
