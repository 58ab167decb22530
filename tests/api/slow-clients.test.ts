// Slow clients cannot hold the server: a client that sends its headers a byte at a time, or
// nothing, is cut after HEADERS_TIMEOUT_MS (node:http counts it from the request's first byte, or
// from the connection's start, and does not start it again on every byte), and one client address holds at most MAX_CONNECTIONS_PER_IP open
// connections on an instance, over all its processes (counted by the first process, which accepts
// them all); one more is answered 429 too_many_connections and closed at once. Behind a trusted
// proxy the forwarded address counts: its requests in flight, per process.
import { request, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import OpenAI from "openai";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace } from "../helpers";
import { startGatewayInstance, type GatewayInstance } from "../instances";

/** Headers timeout 2 s (looked for every 500 ms), at most 100 connections per address. */
let slow: GatewayInstance;
/** Two processes, at most 20 connections per address. */
let pair: GatewayInstance;
/** Behind a trusted proxy, at most 3 requests in flight per forwarded address. */
let proxied: GatewayInstance;

beforeAll(async () => {
  [slow, pair, proxied] = await Promise.all([
    startGatewayInstance({ env: { HEADERS_TIMEOUT_MS: "2000", MAX_CONNECTIONS_PER_IP: "100" } }),
    startGatewayInstance({ env: { WEB_CONCURRENCY: "2", MAX_CONNECTIONS_PER_IP: "20" } }),
    startGatewayInstance({ env: { TRUST_PROXY: "true", MAX_CONNECTIONS_PER_IP: "3" } }),
  ]);
  // The second process takes connections once it is ready (until then the first serves them all).
  const deadline = Date.now() + 30_000;
  while (!/\(process 1\) ready/.test(pair.output())) {
    if (Date.now() > deadline) throw new Error(`the second process never got ready:\n${pair.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await Promise.all([slow?.stop(), pair?.stop(), proxied?.stop()]);
});

/** A bare connection from `localAddress` that sends nothing unless told, and sees all the server sends. */
class Conn {
  readonly socket: Socket;
  received = "";
  /** ms after opening at which the server ended or closed the connection; undefined while open. */
  endedAfter: number | undefined;
  readonly ended: Promise<number>;
  private readonly opened = performance.now();

  constructor(url: string, localAddress: string) {
    const { port, hostname } = new URL(url);
    this.socket = connect({ port: Number(port), host: hostname, localAddress });
    this.socket.setEncoding("latin1");
    this.socket.on("data", (d: string) => (this.received += d));
    this.socket.on("error", () => undefined); // a reset is one of the outcomes looked for
    this.ended = new Promise((resolve) => {
      const done = () => {
        this.endedAfter ??= performance.now() - this.opened;
        this.socket.destroy();
        resolve(this.endedAfter);
      };
      this.socket.once("end", done);
      this.socket.once("close", done);
    });
  }

  get open(): boolean {
    return this.endedAfter === undefined;
  }

  /** The status of the answer the server sent, if any. */
  get status(): number | undefined {
    const m = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
    return m ? Number(m[1]) : undefined;
  }

  write(data: string): void {
    if (this.open) this.socket.write(data);
  }

  close(): void {
    this.socket.destroy();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET on a fresh connection from `localAddress`: status and ms to the whole answer. */
function timedGet(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, agent: false, headers }, (res: IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, ms: performance.now() - started, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Polls `cond` every 50 ms for at most `ms`. */
async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await sleep(50);
  return cond();
}

describe("slow clients", () => {
  it("500 sockets from one address sending headers a byte at a time (or nothing): those over the cap refused at once, the rest cut after the headers timeout; /health and a chat call from another address answer meanwhile within 1 s", async () => {
    const { secret } = await newWorkspace("5");
    // The other address: its own connections, through the official SDK (fetch with an Agent bound to 127.0.0.2).
    const agent = new Agent({ localAddress: "127.0.0.2" });
    const openai = new OpenAI({
      apiKey: secret,
      baseURL: `${slow.url}/v1`,
      maxRetries: 0,
      fetch: ((url: string, init: Record<string, unknown>) => undiciFetch(url, { ...init, dispatcher: agent })) as unknown as typeof fetch,
    });
    const chat = async () => {
      const started = performance.now();
      const completion = await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: "hello" }], max_tokens: 8 });
      expect(completion.choices[0]!.message.content).toBeTruthy();
      return performance.now() - started;
    };
    await chat(); // a first call warms the instance's caches for this key

    const request = "GET /health HTTP/1.1\r\nhost: x\r\nx-padding: " + "a".repeat(200);
    const conns: Conn[] = [];
    for (let i = 0; i < 500; i++) conns.push(new Conn(slow.url, "127.0.0.1"));
    // Four in five send a byte at once and one more every 250 ms: their headers never complete.
    // The fifth sends nothing at all.
    const dripping = conns.filter((_, i) => i % 5 !== 4);
    for (const c of dripping) c.write(request[0]!);
    let sent = 1;
    const drip = setInterval(() => {
      for (const c of dripping) c.write(request[sent % request.length]!);
      sent++;
    }, 250);
    try {
      // Meanwhile, from 127.0.0.2: /health and a chat call, every 250 ms, until the slow ones are gone.
      const health: number[] = [];
      const chats: number[] = [];
      const started = Date.now();
      while (Date.now() - started < 3500) {
        const [h, c] = await Promise.all([timedGet(`${slow.url}/health`, "127.0.0.2"), chat()]);
        expect(h.status).toBe(200);
        health.push(h.ms);
        chats.push(c);
        await sleep(250);
      }
      const allEnded = await waitFor(() => conns.every((c) => !c.open), 6000);
      const refused = conns.filter((c) => c.status === 429);
      const cut = conns.filter((c) => c.status !== 429);
      const report = `refused ${refused.length}, cut ${cut.length}; ms to end, refused: max ${Math.max(...refused.map((c) => c.endedAfter ?? Infinity)).toFixed(0)}; cut: ${cut.map((c) => c.endedAfter?.toFixed(0)).join(", ")}; statuses of the cut: ${[...new Set(cut.map((c) => c.status))].join(", ")}`;
      expect(allEnded, report).toBe(true);
      // At most 100 held (this worker's own keep-alive connection from 127.0.0.1 may be one of them).
      expect(cut.length, report).toBeLessThanOrEqual(100);
      expect(cut.length, report).toBeGreaterThanOrEqual(98);
      // Refused ones: answered in the error shape and closed at once, long before the headers timeout.
      for (const c of refused) expect(c.endedAfter!, report).toBeLessThan(1500);
      const body = JSON.parse(refused[0]!.received.slice(refused[0]!.received.indexOf("\r\n\r\n") + 4)) as { error: { code: string; type: string } };
      expect(body.error).toMatchObject({ code: "too_many_connections", type: "rate_limit_error" });
      // Held ones: cut (408) after the 2 s headers timeout, though a byte arrived every 250 ms (or
      // none did), and at most one check interval (500 ms) and some scheduling later.
      expect(cut.filter((c) => !dripping.includes(c)).length, report).toBeGreaterThan(0);
      for (const c of cut) {
        expect(c.status, report).toBe(408);
        expect(c.endedAfter!, report).toBeGreaterThanOrEqual(1900);
        expect(c.endedAfter!, report).toBeLessThan(4000);
      }
      const slowest = (xs: number[]) => Math.max(...xs).toFixed(0);
      expect(Math.max(...health), `/health ms: ${health.map((m) => m.toFixed(0)).join(", ")}`).toBeLessThan(1000);
      expect(Math.max(...chats), `chat ms: ${chats.map((m) => m.toFixed(0)).join(", ")}; slowest /health ${slowest(health)}`).toBeLessThan(1000);
    } finally {
      clearInterval(drip);
      for (const c of conns) c.close();
      await agent.close();
    }
    // The address's slots are free again.
    expect((await timedGet(`${slow.url}/health`, "127.0.0.1")).status).toBe(200);
  });

  it("with two processes, the cap holds for the instance, and a closed connection frees its slot", async () => {
    const open = (n: number) => Array.from({ length: n }, () => new Conn(pair.url, "127.0.0.3"));
    const first = open(30);
    // Idle connections: a refused one is answered and closed at once; the others stay open.
    await sleep(1000);
    const kept = first.filter((c) => c.open);
    expect(kept.length).toBe(20);
    expect(first.filter((c) => !c.open).every((c) => c.status === 429)).toBe(true);
    // Handed out in turn, the kept ones are held by both processes: five closed, five more fit.
    for (const c of kept.splice(0, 5)) c.close();
    await sleep(500);
    const second = open(7);
    await sleep(1000);
    expect(second.filter((c) => c.open).length).toBe(5);
    // The kept ones are served like any connection.
    const served = [...kept, ...second.filter((c) => c.open)];
    for (const c of served) c.write("GET /health HTTP/1.1\r\nhost: x\r\n\r\n");
    expect(await waitFor(() => served.every((c) => c.status === 200), 5000)).toBe(true);
    for (const c of [...first, ...second]) c.close();
    // Another address is not held back by this one's.
    expect((await timedGet(`${pair.url}/health`, "127.0.0.4")).status).toBe(200);
  });
});

describe("behind a trusted proxy (TRUST_PROXY=true)", () => {
  it("the forwarded address counts, by its requests in flight; the proxy's own connections are not capped", async () => {
    const { secret } = await newWorkspace("5");
    const client = "203.0.113.7";
    // Three calls of the client in flight: their bodies are still on their way.
    const pending = Array.from({ length: 3 }, () => {
      const c = new Conn(proxied.url, "127.0.0.1");
      c.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-forwarded-for: ${client}\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`,
      );
      return c;
    });
    await sleep(500);
    expect(pending.every((c) => c.open && c.status === undefined)).toBe(true);
    // A fourth of the client's, on another of the proxy's connections: refused.
    const refused = await timedGet(`${proxied.url}/health`, "127.0.0.1", { "x-forwarded-for": client });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ error: { message: expect.stringContaining("MAX_CONNECTIONS_PER_IP"), type: "rate_limit_error", param: null, code: "too_many_connections" } });
    // Only the entry the proxy appended counts, not one a client put first.
    expect((await timedGet(`${proxied.url}/health`, "127.0.0.1", { "x-forwarded-for": `198.51.100.1, ${client}` })).status).toBe(429);
    expect((await timedGet(`${proxied.url}/health`, "127.0.0.1", { "x-forwarded-for": `${client}, 198.51.100.1` })).status).toBe(200);
    // Other clients through the same proxy, on more connections from its one address than the cap: served.
    const others = await Promise.all(Array.from({ length: 10 }, (_, i) => timedGet(`${proxied.url}/health`, "127.0.0.1", { "x-forwarded-for": `198.51.100.${i + 10}` })));
    expect(others.map((a) => a.status)).toEqual(Array(10).fill(200));
    // One of the client's calls ends (its connection closes): the next is served.
    pending[0]!.close();
    await sleep(200);
    expect((await timedGet(`${proxied.url}/health`, "127.0.0.1", { "x-forwarded-for": client })).status).toBe(200);
    for (const c of pending) c.close();
  });
});
