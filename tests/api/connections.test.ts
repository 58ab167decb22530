// The data plane's connections: an early 413 closes its connection (what the client still sends
// cannot become the next request), node:http's own refusals (oversized headers, malformed
// requests, requests too slow to arrive) answer in the OpenAI error shape, the connection cap,
// X-Forwarded-* headers honoured only behind a trusted proxy (TRUST_PROXY), and streams on
// kept-alive connections not held back by Nagle's algorithm.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, newWorkspace } from "../helpers";
import { startGatewayInstance, type GatewayInstance } from "../instances";

/** Headers timeout 1 s, whole request 2 s; behind a trusted proxy. */
let timed: GatewayInstance;
/** At most 2 open connections. */
let capped: GatewayInstance;

beforeAll(async () => {
  [timed, capped] = await Promise.all([
    startGatewayInstance({ env: { HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "2000", TRUST_PROXY: "true" } }),
    startGatewayInstance({ env: { MAX_CONNECTIONS: "2" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([timed?.stop(), capped?.stop()]);
});

type Answer = { status: number; headers: Record<string, string>; body: string };

/** A bare connection, to send exactly the bytes a test needs and see everything the server does. */
class Conn {
  readonly socket: Socket;
  private received = Buffer.alloc(0);
  /** Resolves when the server ended or closed the connection (ms after it was opened). */
  readonly ended: Promise<number>;

  constructor(url: string) {
    const { port, hostname } = new URL(url);
    const opened = Date.now();
    this.socket = connect(Number(port), hostname);
    this.socket.on("data", (d: Buffer) => (this.received = Buffer.concat([this.received, d])));
    this.socket.on("error", () => undefined); // a reset while sending is what some tests expect
    this.ended = new Promise((resolve) => {
      this.socket.once("end", () => resolve(Date.now() - opened));
      this.socket.once("close", () => resolve(Date.now() - opened));
    });
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** The first answer on the connection (a JSON or empty body of known length). */
  async answer(timeoutMs = 10_000): Promise<Answer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.received.indexOf("\r\n\r\n");
      if (end >= 0) {
        const [statusLine, ...lines] = this.received.subarray(0, end).toString("latin1").split("\r\n");
        const headers: Record<string, string> = {};
        for (const line of lines) headers[line.slice(0, line.indexOf(":")).trim().toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
        const length = Number(headers["content-length"] ?? 0);
        if (this.received.length >= end + 4 + length) {
          return { status: Number(statusLine!.split(" ")[1]), headers, body: this.received.subarray(end + 4, end + 4 + length).toString("utf8") };
        }
      }
      if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(this.received.toString("latin1").slice(0, 300))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

function expectOpenAIError(a: Answer, status: number, code: string): void {
  expect(a.status).toBe(status);
  expect(a.headers["content-type"]).toBe("application/json");
  const body = JSON.parse(a.body) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error).toEqual({ message: expect.any(String), type: "invalid_request_error", param: null, code });
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe("an early 413", () => {
  it("a declared oversized body: 413 with Connection: close, and the connection is closed though the client stopped sending", async () => {
    const { secret } = await newWorkspace("1");
    const conn = new Conn(baseUrl());
    const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\ncontent-length: ${8 * 1024 * 1024}\r\n\r\n`;
    conn.write(head + "{".padEnd(1024, " "));
    const a = await conn.answer();
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).error.code).toBe("request_too_large");
    expect(a.headers.connection).toBe("close");
    // The client sent 1 KiB of 8 MiB and waits: the server does not wait for the rest.
    await within(conn.ended, 3000, "the connection was not closed");
    conn.close();
  });

  it("a chunked body past the limit: 413 with Connection: close, then the connection ends; the next connection is served", async () => {
    const { secret } = await newWorkspace("1");
    const conn = new Conn(baseUrl());
    conn.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    for (let i = 0; i < 20; i++) conn.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]));
    const a = await conn.answer();
    expect(a.status).toBe(413);
    expect(a.headers.connection).toBe("close");
    // The client neither finishes its body (no last chunk) nor closes: the server does.
    await within(conn.ended, 3000, "the connection was not closed");
    conn.close();
    expect((await fetch(`${baseUrl()}/health`)).status).toBe(200);
  });

  it("a client still sending as fast as it can reads the 413: the connection is closed without a reset under it", async () => {
    const { secret } = await newWorkspace("1");
    const http = await import("node:http");
    const url = new URL(`${baseUrl()}/v1/chat/completions`);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    for (let attempt = 0; attempt < 30; attempt++) {
      let answered = false;
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          { method: "POST", host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "transfer-encoding": "chunked" } },
          (res) => {
            answered = true;
            res.resume();
            res.on("end", () => resolve(res.statusCode!));
          },
        );
        // The write that meets the closed connection fails; the answer must arrive all the same.
        req.on("error", (err) => setTimeout(() => answered || reject(err), 2000));
        let sent = 0;
        const pump = () => {
          if (req.destroyed || answered || sent >= 64 * 1024 * 1024) return;
          sent += chunk.length;
          if (req.write(chunk)) setImmediate(pump);
          else req.once("drain", pump);
        };
        pump();
      });
      expect(status).toBe(413);
    }
  });

  it("a keep-alive client reusing its connection after the 413 is not stalled", async () => {
    const { secret } = await newWorkspace("1");
    const http = await import("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(path, baseUrl());
        const req = http.request(
          { agent, method, host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode!));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    expect(await send("POST", "/v1/chat/completions", Buffer.alloc(5 * 1024 * 1024, 0x20))).toBe(413);
    const started = Date.now();
    expect(await within(send("GET", "/v1/models"), 5000, "the next request")).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    agent.destroy();
  });
});

describe("node:http's own refusals, in the OpenAI error shape", () => {
  it("headers over the limit: 431 JSON, then the connection closes", async () => {
    const conn = new Conn(baseUrl());
    conn.write(`GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20 * 1024)}\r\n\r\n`);
    const a = await conn.answer();
    expectOpenAIError(a, 431, "request_header_fields_too_large");
    expect(a.headers.connection).toBe("close");
    await within(conn.ended, 3000, "the connection was not closed");
  });

  it("a malformed request: 400 JSON, then the connection closes", async () => {
    const conn = new Conn(baseUrl());
    conn.write("GET /v1/models HTTP/1.1\r\nhost: x\r\nbad header line\r\n\r\n");
    const a = await conn.answer();
    expectOpenAIError(a, 400, "invalid_http_request");
    await within(conn.ended, 3000, "the connection was not closed");
  });

  it("headers not complete within HEADERS_TIMEOUT_MS: 408 JSON", async () => {
    const conn = new Conn(timed.url);
    conn.write("GET /v1/models HTTP/1.1\r\nhost: x\r\n");
    const a = await conn.answer(5000);
    expectOpenAIError(a, 408, "request_timeout");
    // 1 s of timeout, looked for every 250 ms
    expect(await within(conn.ended, 3000, "the connection was not closed")).toBeGreaterThanOrEqual(900);
  });

  it("a body not complete within REQUEST_TIMEOUT_MS: 408 JSON", async () => {
    const { secret } = await newWorkspace("1");
    const conn = new Conn(timed.url);
    conn.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`);
    const a = await conn.answer(6000);
    expectOpenAIError(a, 408, "request_timeout");
    expect(await within(conn.ended, 3000, "the connection was not closed")).toBeGreaterThanOrEqual(1900);
  });
});

describe("MAX_CONNECTIONS", () => {
  it("a connection past the cap is closed at once, unanswered; one frees when another closes", async () => {
    // This worker may hold a keep-alive connection of its own to the instance (its readiness
    // check), which counts: connections are opened until one is refused.
    const accepted: Conn[] = [];
    let refused: Conn | undefined;
    while (!refused && accepted.length < 3) {
      const c = new Conn(capped.url);
      c.write("GET /health HTTP/1.1\r\nhost: x\r\n\r\n");
      const outcome = await Promise.race([c.answer(3000).then((a) => a.status), c.ended.then(() => "closed" as const)]);
      if (outcome === "closed") refused = c;
      else {
        expect(outcome).toBe(200);
        accepted.push(c);
      }
    }
    expect(refused, "no connection was refused").toBeDefined();
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(accepted.length).toBeLessThanOrEqual(2);
    // Once one closes, the next is served.
    accepted.pop()!.close();
    await new Promise((r) => setTimeout(r, 200));
    const next = new Conn(capped.url);
    next.write("GET /health HTTP/1.1\r\nhost: x\r\n\r\n");
    expect((await next.answer()).status).toBe(200);
    for (const c of [...accepted, next]) c.close();
  });
});

describe("X-Forwarded-* headers", () => {
  const spoofed = { "x-forwarded-host": "attacker.example", "x-forwarded-proto": "https" };
  const imageLink = async (url: string, secret: string) => {
    const res = await fetch(`${url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...spoofed },
      body: JSON.stringify({ model: "local-image", prompt: "a fox", response_format: "url", size: "256x256" }),
    });
    expect(res.status).toBe(200);
    return new URL(((await res.json()) as { data: { url: string }[] }).data[0]!.url);
  };

  it("without TRUST_PROXY, image links point at the host the request was sent to", async () => {
    const { secret } = await newWorkspace("1");
    const link = await imageLink(baseUrl(), secret);
    expect(link.origin).toBe(baseUrl());
  });

  it("with TRUST_PROXY=true, at the host and scheme the proxy reports", async () => {
    const { secret } = await newWorkspace("1");
    const link = await imageLink(timed.url, secret);
    expect(link.origin).toBe("https://attacker.example");
  });

  /** The sign-in URL the dashboard's auth builds from the request's origin (NEXTAUTH_URL is unset). */
  const signInOrigin = async (url: string) => {
    const res = await fetch(`${url}/api/auth/providers`, { headers: spoofed });
    expect(res.status).toBe(200);
    return new URL(((await res.json()) as { credentials: { signinUrl: string } }).credentials.signinUrl).origin;
  };

  it("the dashboard sees them only with TRUST_PROXY=true", async () => {
    expect(await signInOrigin(baseUrl())).toBe(baseUrl());
    expect(await signInOrigin(timed.url)).toBe("https://attacker.example");
  });
});

describe("streams on kept-alive connections", () => {
  /** Sends one streamed chat call on `agent`; ms from the first body byte to the end. */
  async function firstByteToEnd(agent: import("node:http").Agent, secret: string): Promise<number> {
    const http = await import("node:http");
    const body = JSON.stringify({ model: "local-chat-sim", messages: [{ role: "user", content: "a few words, streamed" }], max_tokens: 24, stream: true });
    return new Promise((resolve, reject) => {
      const req = http.request(`${baseUrl()}/v1/chat/completions`, { method: "POST", agent, headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } }, (res) => {
        let first = 0;
        let text = "";
        res.on("data", (chunk: Buffer) => {
          first ||= performance.now();
          text += chunk.toString("utf8");
        });
        res.on("end", () => (res.statusCode === 200 && text.includes("[DONE]") ? resolve(performance.now() - first) : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`))));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  it("a stream's later events are not held back after its first (TCP_NODELAY: no wait for the client's delayed acknowledgement)", async () => {
    const { secret } = await newWorkspace("1");
    const http = await import("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const gaps: number[] = [];
      for (let i = 0; i < 15; i++) gaps.push(await firstByteToEnd(agent, secret));
      // The gateway sends a stream's first event at once and what follows as it comes. With
      // Nagle's algorithm on its socket, the next write waited for the client to acknowledge the
      // first, which Linux delays by 40 ms once a connection is past its first exchanges: most
      // streams ended 40 ms or more after their first byte (0.2 ms for the first few).
      const stalled = gaps.filter((ms) => ms >= 35);
      expect(stalled.length, `ms from first byte to end: ${gaps.map((g) => g.toFixed(1)).join(", ")}`).toBeLessThanOrEqual(2);
    } finally {
      agent.destroy();
    }
  });
});
