// Parity of the two hosts of the one dispatcher (server/transport/dispatch.ts): the node:http
// data plane that `npm start` runs (the test gateway) and the Next.js route handlers under plain
// `next start` (tests/next-host.ts), on the same build and database. Each representative request
// goes to both with the same key; status, headers and bodies are compared after normalizing what
// must differ (ids, timestamps, request ids, the host in signed links, their signature).
//
// Not compared, because Next.js imposes it and a route handler cannot change it:
// - `vary: rsc, next-router-state-tree, ...` (added to every app route answer);
// - Content-Length: Next.js sends every route handler body chunked (it drops the header even
//   when the handler sets it), so lengths are compared only where both hosts send one;
// - Content-Encoding: Next.js compresses answers the client accepts gzip for (next.config
//   `compress`); fetch decodes, so the bodies are still compared;
// - Date, Connection, Keep-Alive, Transfer-Encoding: framing and server settings (Next.js keeps
//   idle connections 5 s, the gateway's server 65 s), not part of an answer;
// - X-Request-Id differs by design: each answer's is checked for its shape instead;
// - paths Next.js rewrites or refuses before any route handler runs, which are therefore not
//   sent here: a trailing slash or `//` (308 redirect to the normalized path; the data plane
//   answers 404 unknown_url), malformed percent-encoding in a path segment (Next.js answers a
//   plain-text 500; the data plane 400 invalid_request naming the parameter), and methods other
//   than GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (TRACE: plain-text 500, PROPFIND: empty 400;
//   the data plane 405 with Allow).
import { createHash } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPlan } from "../../server/identity/plans/manage-plans";
import { newWorkspace } from "../helpers";
import { wav } from "../helpers-media";
import { startNextHost, type NextHost } from "../next-host";

type HostName = "node" | "next";
type Answer = { status: number; headers: Record<string, string>; body: Buffer };
type Pair = Record<HostName, Answer>;
/** A request, made anew for each host (a form or a stream body can be sent only once). */
type Req = { method?: string; key?: string; headers?: Record<string, string>; json?: unknown; body?: () => BodyInit };
type BodyKind = "json" | "sse" | "text" | "bytes" | "audio" | "empty";

let next: NextHost;
const base = (host: HostName) => (host === "node" ? inject("baseUrl") : next.url);

const CHAT = "local-chat-sim";
const REQUEST_ID = /^req_[A-Za-z0-9]{24}$/;
/** Headers that are not compared between the hosts; see the top of this file for why. */
const NOT_COMPARED = new Set(["vary", "content-length", "content-encoding", "date", "connection", "keep-alive", "transfer-encoding", "x-request-id"]);

async function send(host: HostName, path: string, req: Req = {}): Promise<Answer> {
  const headers = new Headers(req.headers);
  if (req.key) headers.set("authorization", `Bearer ${req.key}`);
  let body: BodyInit | undefined = req.body?.();
  if (req.json !== undefined) {
    headers.set("content-type", "application/json");
    body = typeof req.json === "string" ? req.json : JSON.stringify(req.json);
  }
  const res = await fetch(`${base(host)}${path}`, {
    method: req.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
    redirect: "manual",
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
  return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) };
}

/** The same request to the data plane, then to the Next.js host. */
async function both(path: string, req: Req = {}): Promise<Pair> {
  const node = await send("node", path, req);
  return { node, next: await send("next", path, req) };
}

/** A HEAD request on a bare socket, to see every byte the host sends back (there must be none after the headers). */
function head(host: HostName, path: string, key?: string): Promise<Answer> {
  const url = new URL(base(host));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error(`HEAD ${path} on ${host}: no answer`)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return reject(new Error(`HEAD ${path} on ${host}: incomplete answer ${JSON.stringify(raw.toString("latin1"))}`));
      const [statusLine, ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        const name = line.slice(0, at).trim().toLowerCase();
        const value = line.slice(at + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: raw.subarray(end + 4) });
    });
    socket.write(`HEAD ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${key ? `authorization: Bearer ${key}\r\n` : ""}connection: close\r\n\r\n`);
  });
}

// ---- normalizing what must differ between two answers ----

const TIMESTAMP_KEYS = new Set(["created", "created_at", "completed_at", "expires_at"]);
/** Generated ids (`chatcmpl-…`, `video-…`, `req_…`, `img_…`, `resp_…`): a lower-case prefix and 16+ random characters. */
const GENERATED_ID = /\b([a-z][a-z0-9]*[-_])([A-Za-z0-9]{16,})\b/g;

/**
 * One normalizer per answer: the host's own origin becomes `<self>`; each generated id becomes
 * its prefix and its rank of first appearance in the answer (so an id repeated across the
 * frames of a stream must still be the same id); Unix timestamps within a few days of now
 * become `<unix>`; a link's expiry and signature become placeholders; uptime becomes `<ms>`.
 */
function normalizer(self: string) {
  const ids = new Map<string, string>();
  const counts = new Map<string, number>();
  const now = Date.now() / 1000;
  const str = (s: string) =>
    s
      .split(self)
      .join("<self>")
      .replace(/([?&]expires=)\d+/g, "$1<unix>")
      .replace(/([?&]signature=)[A-Za-z0-9_-]+/g, "$1<signature>")
      .replace(GENERATED_ID, (id, prefix: string) => {
        let named = ids.get(id);
        if (!named) {
          const n = (counts.get(prefix) ?? 0) + 1;
          counts.set(prefix, n);
          ids.set(id, (named = `${prefix}<${n}>`));
        }
        return named;
      });
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string") return str(value);
    if (typeof value === "number") {
      if (key && TIMESTAMP_KEYS.has(key) && Number.isInteger(value) && Math.abs(value - now) < 3 * 86_400) return "<unix>";
      if (key === "uptimeMs" && value >= 0) return "<ms>";
      return value;
    }
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return { str, walk };
}

/** Server-sent events as frames: each frame's event name (named events) and its data, parsed. */
function frames(text: string): { event?: string; data: unknown }[] {
  expect(text.endsWith("\n\n"), "every frame ends with a blank line").toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      const out: { event?: string; data: unknown } = { data: undefined };
      for (const line of frame.split("\n")) {
        if (line.startsWith("event: ")) out.event = line.slice(7);
        else if (line.startsWith("data: ")) out.data = line === "data: [DONE]" ? "[DONE]" : JSON.parse(line.slice(6));
        else throw new Error(`unexpected line in a server-sent event: ${JSON.stringify(line)}`);
      }
      return out;
    });
}

const MAX_AGE = /max-age=(\d+)/;

/** What is compared of an answer: status, the headers (less those Next.js imposes) and the normalized body. */
function view(answer: Answer, self: string, kind: BodyKind) {
  const norm = normalizer(self);
  const headers = Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => !NOT_COMPARED.has(name))
      // A signed image link's lifetime counts down: compared below, to within a few seconds.
      .map(([name, value]) => [
        name,
        name === "cache-control" ? value.replace(MAX_AGE, "max-age=<s>") : name === "openai-processing-ms" ? value.replace(/^\d+$/, "<ms>") : norm.str(value),
      ]),
  );
  const text = answer.body.toString("utf8");
  const body = {
    json: () => norm.walk(JSON.parse(text)),
    sse: () => frames(text).map((f) => norm.walk(f)),
    text: () => norm.str(text),
    bytes: () => ({ bytes: answer.body.length, sha256: createHash("sha256").update(answer.body).digest("hex") }),
    // The built-in node's speech varies from call to call (its samples, not their number or container).
    audio: () => ({ bytes: answer.body.length, container: answer.body.subarray(0, 4).toString("latin1") }),
    empty: () => answer.body.length,
  }[kind]();
  return { status: answer.status, headers, body };
}

/** Checks every answer must pass on its own, whichever host gave it. */
function checkAnswer(answer: Answer, host: HostName) {
  expect(answer.headers["x-request-id"], `x-request-id from ${host}`).toMatch(REQUEST_ID);
  const length = answer.headers["content-length"];
  if (length !== undefined && !answer.headers["content-encoding"]) expect(Number(length), `content-length from ${host}`).toBe(answer.body.length);
}

/** Both answers pass on their own and are the same once normalized; returns the data plane's view. */
function expectParity(pair: Pair, kind: BodyKind) {
  checkAnswer(pair.node, "node");
  checkAnswer(pair.next, "next");
  const node = view(pair.node, base("node"), kind);
  expect(view(pair.next, base("next"), kind)).toEqual(node);
  const [a, b] = [pair.node.headers["content-length"], pair.next.headers["content-length"]];
  if (a !== undefined && b !== undefined) expect(b).toBe(a);
  const [ageA, ageB] = [pair.node, pair.next].map((p) => MAX_AGE.exec(p.headers["cache-control"] ?? "")?.[1]);
  if (ageA !== undefined) expect(Math.abs(Number(ageA) - Number(ageB))).toBeLessThanOrEqual(5);
  return node;
}

/** An error answer in the OpenAI shape, the same from both hosts; returns the error object. */
function expectErrorParity(pair: Pair, status: number, code: string) {
  const v = expectParity(pair, "json");
  expect(v.status).toBe(status);
  expect(v.headers["content-type"]).toBe("application/json");
  const body = v.body as { error: { code: string; message: string; param: string | null; type: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error.code).toBe(code);
  return body.error;
}

/**
 * For state other test files or the video workers change while this one runs (the catalog, a
 * job's status): asks the data plane, the Next.js host, then the data plane again, until the data
 * plane gave the same answer twice and the Next.js host agreed (its caches follow the database by
 * notification, so they may lag by a moment). The last attempt is returned either way.
 */
async function settled(path: string, req: Req, kind: BodyKind): Promise<Pair> {
  let pair: Pair | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = await send("node", path, req);
    pair = { node: first, next: await send("next", path, req) };
    const again = await send("node", path, req);
    const same = (x: Answer, y: Answer, bx: string, by: string) => JSON.stringify(view(x, bx, kind)) === JSON.stringify(view(y, by, kind));
    if (same(first, again, base("node"), base("node")) && same(first, pair.next, base("node"), base("next"))) return pair;
    await new Promise((r) => setTimeout(r, 250));
  }
  return pair!;
}

let key: string;
let brokeKey: string;

const VIDEO = { model: "local-video", prompt: "a red fox in the snow", seconds: 1, size: "320x180" };
let rendered: Promise<string> | undefined;

/** A video job rendered to the end (by the test gateway's workers), to read back from both hosts. */
function completedVideo(): Promise<string> {
  return (rendered ??= (async () => {
    const created = await send("node", "/v1/videos", { key, json: { ...VIDEO, prompt: "to read back" } });
    const { id } = JSON.parse(created.body.toString()) as { id: string };
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { status } = JSON.parse((await send("node", `/v1/videos/${id}`, { key })).body.toString()) as { status: string };
      if (status === "completed") return id;
      if (status === "failed" || Date.now() > deadline) throw new Error(`video job ${id} ended ${status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  })());
}

let planWorkspace: string;

beforeAll(async () => {
  next = await startNextHost();
  const ws = await newWorkspace("10", "host parity");
  key = ws.secret;
  planWorkspace = ws.workspace.id;
  brokeKey = (await newWorkspace("0", "host parity, no credits")).secret;
});
afterAll(async () => {
  await next?.stop();
});

describe("the data plane and the Next.js host answer alike", () => {
  describe("catalog and health", () => {
    it("GET /health", async () => {
      const v = expectParity(await both("/health"), "json");
      expect(v).toMatchObject({ status: 200, body: { ok: true, uptimeMs: "<ms>" } });
    });

    it("GET /v1/models", async () => {
      const v = expectParity(await settled("/v1/models", { key }, "json"), "json");
      expect(v.status).toBe(200);
      expect((v.body as { data: { id: string }[] }).data.map((m) => m.id)).toContain(CHAT);
    });

    it.each([CHAT, "local-video"])("GET /v1/models/%s", async (id) => {
      const v = expectParity(await settled(`/v1/models/${id}`, { key }, "json"), "json");
      expect(v).toMatchObject({ status: 200, body: { id, pricing: expect.any(Object) } });
    });
  });

  describe("session tokens", () => {
    it("GET /.well-known/jwks.json", async () => {
      const v = expectParity(await both("/.well-known/jwks.json"), "json");
      expect((v.body as { keys: { kid: string; alg: string }[] }).keys[0]).toMatchObject({ alg: "ES256" });
    });

    it("POST /v1/sessions on each host mints a token that both hosts accept; 403 and 401 alike", async () => {
      await createPlan(planWorkspace, { name: "parity", models: [CHAT] });
      const minted = await Promise.all((["node", "next"] as const).map((h) => send(h, "/v1/sessions", { key, json: { plan: "parity", subject: "p" } })));
      for (const m of minted) expect(m.status).toBe(200);
      for (const m of minted) {
        const token = (JSON.parse(m.body.toString()) as { token: string }).token;
        const ok = expectParity(await both("/v1/chat/completions", { key: token, json: { model: CHAT, messages: [{ role: "user", content: "hi" }], seed: 7 } }), "json");
        expect(ok.status).toBe(200);
        expectErrorParity(await both("/v1/embeddings", { key: token, json: { model: "local-embed-ngram", input: "x" } }), 403, "model_not_allowed");
        expectErrorParity(await both("/v1/sessions", { key: token, json: { plan: "parity", subject: "q" } }), 403, "permission_denied");
      }
      expectErrorParity(await both("/v1/models", { key: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln" }), 401, "invalid_token");
    });
  });

  describe("text", () => {
    const messages = [{ role: "user", content: "Tell me about gateways" }];

    it("POST /v1/chat/completions", async () => {
      const v = expectParity(await both("/v1/chat/completions", { key, json: { model: CHAT, messages, seed: 7 } }), "json");
      expect(v).toMatchObject({ status: 200, body: { object: "chat.completion", id: "chatcmpl-<1>", created: "<unix>" } });
    });

    it("POST /v1/chat/completions, streamed: the same frames, `data: [DONE]` last, the same stream headers", async () => {
      const pair = await both("/v1/chat/completions", { key, json: { model: CHAT, messages, seed: 7, stream: true, stream_options: { include_usage: true } } });
      const v = expectParity(pair, "sse");
      expect(v.status).toBe(200);
      expect(v.headers).toMatchObject({ "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" });
      const sent = v.body as { event?: string; data: { object?: string; usage?: unknown } | string }[];
      expect(sent.length).toBeGreaterThan(3);
      expect(sent.at(-1)).toEqual({ data: "[DONE]" });
      expect(sent.filter((f) => f.data === "[DONE]")).toHaveLength(1);
      expect(sent.every((f) => f.event === undefined)).toBe(true);
      expect((sent.at(-2)!.data as { usage: unknown }).usage).toMatchObject({ total_tokens: expect.any(Number) });
    });

    it("POST /v1/chat/completions, streamed, failing mid-stream: an error frame, then `data: [DONE]`", async () => {
      const pair = await both("/v1/chat/completions", { key, json: { model: CHAT, messages: [{ role: "user", content: "break [sim:fail-mid-stream]" }], stream: true } });
      const sent = expectParity(pair, "sse").body as { data: { error?: unknown } | string }[];
      expect(sent.at(-1)).toEqual({ data: "[DONE]" });
      expect(sent.at(-2)!.data).toMatchObject({ error: { code: expect.any(String) } });
    });

    it("POST /v1/responses, streamed: the same named events", async () => {
      const v = expectParity(await both("/v1/responses", { key, json: { model: CHAT, input: "Hello there", stream: true } }), "sse");
      expect(v.headers).toMatchObject({ "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" });
      const events = (v.body as { event?: string }[]).map((f) => f.event);
      expect(events[0]).toBe("response.created");
      expect(events).toContain("response.output_text.delta");
      expect(events.at(-1)).toBe("response.completed");
    });

    it("POST /v1/responses, then GET /v1/responses/{id} and its input items", async () => {
      const created = await both("/v1/responses", { key, json: { model: CHAT, input: "Store me", metadata: { from: "parity" } } });
      expect(expectParity(created, "json")).toMatchObject({ status: 200, body: { id: "resp_<1>", object: "response", store: true } });
      const { id } = JSON.parse(created.node.body.toString()) as { id: string };
      const v = expectParity(await both(`/v1/responses/${id}`, { key }), "json");
      expect(v).toMatchObject({ status: 200, body: { object: "response", status: "completed" } });
      expectParity(await both(`/v1/responses/${id}/input_items?limit=5`, { key }), "json");
    });

    it("POST /v1/embeddings", async () => {
      const v = expectParity(await both("/v1/embeddings", { key, json: { model: "local-embed-ngram", input: ["the cat sat", "on the mat"], encoding_format: "float" } }), "json");
      expect(v).toMatchObject({ status: 200, body: { object: "list", data: [{ object: "embedding" }, { object: "embedding" }] } });
    });
  });

  describe("audio and images", () => {
    it("POST /v1/audio/speech: audio bytes of the same type and length", async () => {
      const v = expectParity(await both("/v1/audio/speech", { key, json: { model: "local-tts", input: "Hello from both hosts.", voice: "alloy" } }), "audio");
      expect(v.status).toBe(200);
      expect(v.headers["content-type"]).toBe("audio/mpeg");
      expect((v.body as { bytes: number }).bytes).toBeGreaterThan(1000);
    });

    it.each([
      ["verbose_json", "json"],
      ["srt", "text"],
    ] as const)("POST /v1/audio/transcriptions (multipart), %s", async (format, kind) => {
      // Speech for the subtitles (a recognizer, when the built-in node has one, hears nothing in a tone).
      const audio =
        kind === "json"
          ? new Uint8Array(wav(1.5))
          : new Uint8Array(
              await (
                await fetch(`${base("node")}/v1/audio/speech`, {
                  method: "POST",
                  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
                  body: JSON.stringify({ model: "local-tts", input: "Hello from both hosts of the gateway.", voice: "alloy", response_format: "wav" }),
                })
              ).arrayBuffer(),
            );
      const form = () => {
        const f = new FormData();
        f.append("model", "local-stt");
        f.append("response_format", format);
        f.append("file", new Blob([audio], { type: "audio/wav" }), kind === "json" ? "tone.wav" : "speech.wav");
        return f;
      };
      const v = expectParity(await both("/v1/audio/transcriptions", { key, body: form }), kind);
      expect(v.status).toBe(200);
      if (kind === "json") expect(v.body).toMatchObject({ duration: 1.5, text: expect.any(String) });
      else expect(v.body).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n\S/);
      // Speech made, then recognized twice (once per host): seconds of CPU each on a loaded machine.
    }, 90_000);

    it("POST /v1/images/generations with response_format url, then the signed link from each host on both", async () => {
      const pair = await both("/v1/images/generations", { key, json: { model: "local-image", prompt: "a lighthouse", size: "256x256", response_format: "url" } });
      const v = expectParity(pair, "json");
      // Each host links to itself: equal once its own origin is `<self>`.
      expect(v.body).toMatchObject({ created: "<unix>", data: [{ url: "<self>/v1/images/files/img_<1>.png?expires=<unix>&signature=<signature>" }] });
      const images: ReturnType<typeof view>[] = [];
      for (const host of ["node", "next"] as const) {
        const link = new URL((JSON.parse(pair[host].body.toString()) as { data: { url: string }[] }).data[0]!.url);
        expect(link.origin).toBe(base(host));
        const file = expectParity(await both(`${link.pathname}${link.search}`), "bytes");
        expect(file.status).toBe(200);
        expect(file.headers["content-type"]).toBe("image/png");
        images.push(file);
      }
      // The same prompt made the same picture through either host.
      expect(images[1]!.body).toEqual(images[0]!.body);
    });
  });

  describe("videos", () => {
    const job = VIDEO;
    let completed: string;

    beforeAll(async () => {
      completed = await completedVideo();
    });

    it("POST /v1/videos (JSON)", async () => {
      const v = expectParity(await both("/v1/videos", { key, json: job }), "json");
      expect(v).toMatchObject({ status: 200, body: { id: "video-<1>", object: "video.generation.job", status: "queued" } });
    });

    it("POST /v1/videos (multipart, as the OpenAI SDKs send it)", async () => {
      const form = () => {
        const f = new FormData();
        for (const [k, value] of Object.entries(job)) f.append(k, String(value));
        return f;
      };
      const v = expectParity(await both("/v1/videos", { key, body: form }), "json");
      expect(v).toMatchObject({ status: 200, body: { id: "video-<1>", status: "queued", seconds: 1 } });
    });

    it("GET /v1/videos/{id}", async () => {
      const v = expectParity(await settled(`/v1/videos/${completed}`, { key }, "json"), "json");
      expect(v).toMatchObject({ status: 200, body: { status: "completed", completed_at: "<unix>" } });
    });

    it("GET /v1/videos/{id}/content of a completed job: the same mp4", async () => {
      const v = expectParity(await both(`/v1/videos/${completed}/content`, { key }), "bytes");
      expect(v).toMatchObject({ status: 200, headers: { "content-type": "video/mp4", "accept-ranges": "bytes" } });
      expect((v.body as { bytes: number }).bytes).toBeGreaterThan(1000);
    });

    it("GET /v1/videos/{id}/content with a Range: 206 with the same bytes; 416 out of range", async () => {
      const v = expectParity(await both(`/v1/videos/${completed}/content`, { key, headers: { range: "bytes=0-99" } }), "bytes");
      expect(v).toMatchObject({ status: 206, headers: { "content-type": "video/mp4", "content-range": expect.stringMatching(/^bytes 0-99\/\d+$/) }, body: { bytes: 100 } });
      const error = expectErrorParity(await both(`/v1/videos/${completed}/content`, { key, headers: { range: "bytes=99999999-" } }), 416, "range_not_satisfiable");
      expect(error.param).toBe("range");
    });

    it("409: content before the job completed", async () => {
      const created = await send("node", "/v1/videos", { key, json: { ...job, prompt: "slowly [sim:slow]" } });
      const { id } = JSON.parse(created.body.toString()) as { id: string };
      const error = expectErrorParity(await settled(`/v1/videos/${id}/content`, { key }, "json"), 409, "video_not_ready");
      expect(error.param).toBe("id");
    });
  });

  describe("errors", () => {
    it.each([
      ["missing", undefined, "You didn't provide"],
      ["malformed", "Basic abc", "malformed"],
      ["unknown", `Bearer sk-gw-${"A".repeat(40)}`, "Incorrect API key"],
    ])("401: a %s key", async (_label, authorization, message) => {
      const error = expectErrorParity(await both("/v1/models", { headers: authorization ? { authorization } : {} }), 401, "invalid_api_key");
      expect(error.message).toContain(message);
    });

    it("400: invalid JSON", async () => {
      expectErrorParity(await both("/v1/chat/completions", { key, json: "{not json" }), 400, "invalid_json");
    });

    it("400: a schema violation names the parameter", async () => {
      const error = expectErrorParity(await both("/v1/chat/completions", { key, json: { model: CHAT, messages: "hello" } }), 400, "invalid_value");
      expect(error.param).toBe("messages");
      const video = expectErrorParity(await both("/v1/videos", { key, json: { model: "local-video", prompt: "x", seconds: 999 } }), 400, "invalid_value");
      expect(video.param).toBe("seconds");
    });

    it("404: an unknown URL, an unknown model, an unknown video id", async () => {
      expect(expectErrorParity(await both("/v1/nothing/here", { key }), 404, "unknown_url").message).toContain("/v1/nothing/here");
      expectErrorParity(await both("/v1/models/no-such-model", { key }), 404, "model_not_found");
      expect(expectErrorParity(await both("/v1/chat/completions", { key, json: { model: "no-such-model", messages: [{ role: "user", content: "hi" }] } }), 404, "model_not_found").param).toBe("model");
      expectErrorParity(await both("/v1/videos/video-doesnotexist0000000000", { key }), 404, "video_not_found");
    });

    it("403: DELETE /v1/models/{id} with an API key", async () => {
      expectErrorParity(await both(`/v1/models/${CHAT}`, { method: "DELETE", key }), 403, "permission_denied");
    });

    it.each([
      ["POST", "/v1/models", "GET, HEAD"],
      ["DELETE", "/v1/chat/completions", "POST"],
      ["PUT", "/v1/videos", "POST, GET, HEAD"],
      ["GET", "/v1/moderations", "POST"],
      ["POST", "/health", "GET, HEAD"],
    ])("405: %s %s, with `allow`", async (method, path, allow) => {
      const pair = await both(path, { method, key, ...(method === "GET" ? {} : { body: () => "{}" }) });
      expectErrorParity(pair, 405, "method_not_allowed");
      expect(pair.node.headers.allow).toBe(allow);
    });

    const OVER_LIMIT = 4 * 1024 * 1024 + 1; // MAX_JSON_BODY_BYTES (4 MiB by default), plus one

    it("413: a body over MAX_JSON_BODY_BYTES, its length declared", async () => {
      expectErrorParity(await both("/v1/chat/completions", { key, json: " ".repeat(OVER_LIMIT) }), 413, "request_too_large");
    });

    it("413: a body over MAX_JSON_BODY_BYTES, sent chunked; the host stays well", async () => {
      const chunked = () => {
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            const n = Math.min(64 * 1024, OVER_LIMIT - sent);
            if (n <= 0) return controller.close();
            sent += n;
            controller.enqueue(new Uint8Array(n).fill(0x20));
          },
        });
      };
      const before = next.output().length;
      expectErrorParity(await both("/v1/chat/completions", { key, headers: { "content-type": "application/json" }, body: chunked }), 413, "request_too_large");
      await new Promise((r) => setTimeout(r, 300));
      expect(next.output().slice(before), "what the Next.js host logged meanwhile").not.toMatch(/uncaughtException|unhandledRejection/);
    });

    it("402: a workspace without credits", async () => {
      const pair = await both("/v1/chat/completions", { key: brokeKey, json: { model: CHAT, messages: [{ role: "user", content: "hi" }] } });
      expectErrorParity(pair, 402, "insufficient_quota");
    });

    it.each([
      ["GET", "/v1/fine_tuning/jobs/ftjob-unknown"],
      ["GET", "/v1/fine_tuning/jobs/ftjob-unknown/events"],
      ["POST", "/v1/fine_tuning/jobs/ftjob-unknown/cancel"],
    ])("404: %s %s, a fine-tuning job the workspace does not have", async (method, path) => {
      const pair = await both(path, { method, key });
      expect(expectErrorParity(pair, 404, "fine_tuning_job_not_found")).toMatchObject({ param: "fine_tuning_job_id" });
    });

    it("429 from the node, with its `retry-after`", async () => {
      const pair = await both("/v1/chat/completions", { key, json: { model: CHAT, messages: [{ role: "user", content: "[sim:429]" }] } });
      expectErrorParity(pair, 429, "upstream_rate_limited");
      expect(pair.node.headers["retry-after"]).toBe("1");
    });
  });

  describe("HEAD and OPTIONS", () => {
    // [label, path, whether the body (hence its length) is the same from one GET to the next]
    const heads: [string, () => string, boolean][] = [
      ["/health", () => "/health", false],
      ["/v1/models", () => "/v1/models", false],
      ["/v1/models/{id}", () => `/v1/models/${CHAT}`, true],
      ["/v1/models/{unknown}", () => "/v1/models/no-such-model", true],
      ["/v1/fine_tuning/jobs/{unknown}", () => "/v1/fine_tuning/jobs/ftjob-unknown", true],
    ];
    let videoId: string;
    let imagePath: string;

    beforeAll(async () => {
      // A finished video job and a stored image, for the binary GET routes.
      videoId = await completedVideo();
      const image = await send("node", "/v1/images/generations", { key, json: { model: "local-image", prompt: "for HEAD", size: "256x256", response_format: "url" } });
      const link = new URL((JSON.parse(image.body.toString()) as { data: { url: string }[] }).data[0]!.url);
      imagePath = `${link.pathname}${link.search}`;
    });

    const binaryHeads: [string, () => string, boolean][] = [
      ["/v1/videos/{id}", () => `/v1/videos/${videoId}`, true],
      ["/v1/videos/{id}/content", () => `/v1/videos/${videoId}/content`, true],
      ["/v1/images/files/{name}", () => imagePath, true],
    ];

    it.each([...heads, ...binaryHeads])("HEAD %s: no body, the headers of GET, alike on both hosts", async (_label, path, stable) => {
      const views: Record<HostName, ReturnType<typeof view>> = {} as never;
      for (const host of ["node", "next"] as const) {
        const h = await head(host, path(), key);
        const g = await send(host, path(), { key });
        expect(h.body.length, `bytes after the headers of HEAD from ${host}`).toBe(0);
        expect(h.headers["x-request-id"]).toMatch(REQUEST_ID);
        const hv = view(h, base(host), "empty");
        const gv = view(g, base(host), "empty");
        expect({ status: hv.status, headers: hv.headers }, `HEAD and GET from ${host}`).toEqual({ status: gv.status, headers: gv.headers });
        if (stable && h.headers["content-length"] !== undefined) expect(h.headers["content-length"], `HEAD's content-length from ${host}`).toBe(g.headers["content-length"]);
        views[host] = hv;
      }
      expect(views.next).toEqual(views.node);
    });

    it.each([
      ["/v1/models", "GET, HEAD, OPTIONS"],
      [`/v1/models/${CHAT}`, "GET, DELETE, HEAD, OPTIONS"],
      ["/v1/chat/completions", "POST, OPTIONS"],
      ["/v1/videos/video-any/content", "GET, HEAD, OPTIONS"],
      ["/v1/files", "GET, POST, HEAD, OPTIONS"],
      ["/health", "GET, HEAD, OPTIONS"],
    ])("OPTIONS %s: 204 with `allow`, without a key", async (path, allow) => {
      const pair = await both(path, { method: "OPTIONS" });
      const v = expectParity(pair, "empty");
      expect(v).toMatchObject({ status: 204, headers: { allow }, body: 0 });
    });

    it("OPTIONS on an unknown path is an unknown path (401 without a key)", async () => {
      expectErrorParity(await both("/v1/nothing/here", { method: "OPTIONS" }), 401, "invalid_api_key");
    });
  });

  it("the Next.js host reported no uncaught exception while answering", () => {
    expect(next.output()).not.toMatch(/uncaughtException|unhandledRejection/);
  });
});
