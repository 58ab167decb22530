// Compressed answers. On the node:http data plane (the test gateway; server/transport/compression.ts),
// a JSON answer of 1 KB or more goes out brotli- or gzip-encoded when the client's Accept-Encoding
// allows it, and decodes to the JSON sent to a client that does not ask; small answers, event
// streams and media never are. On the Next.js host (`next start`), Next.js compresses the route
// handlers' answers itself (gzip, at any size): JSON is, event streams and media are not either.
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newWorkspace } from "../helpers";
import { startNextHost, type NextHost } from "../next-host";

type HostName = "node" | "next";
let next: NextHost;
let secret: string;
const base = (host: HostName) => (host === "node" ? inject("baseUrl") : next.url);

beforeAll(async () => {
  [next, { secret }] = await Promise.all([startNextHost(), newWorkspace("5")]);
});

afterAll(async () => {
  await next?.stop();
});

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** One request with node:http, which neither sends Accept-Encoding of its own nor decodes: the bytes as sent. */
function send(host: HostName, path: string, opts: { method?: string; acceptEncoding?: string; json?: unknown } = {}): Promise<Raw> {
  const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (opts.acceptEncoding !== undefined) headers["accept-encoding"] = opts.acceptEncoding;
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = request(`${base(host)}${path}`, { method: opts.method ?? (body === undefined ? "GET" : "POST"), headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function decoded(answer: Raw): string {
  const encoding = answer.headers["content-encoding"];
  if (encoding === "br") return brotliDecompressSync(answer.body).toString("utf8");
  if (encoding === "gzip") return gunzipSync(answer.body).toString("utf8");
  expect(encoding).toBeUndefined();
  return answer.body.toString("utf8");
}

const varies = (answer: Raw) => String(answer.headers.vary ?? "").toLowerCase().split(/\s*,\s*/).includes("accept-encoding");

/** Many inputs: an answer of many vectors (2 KB of JSON per vector of 256 floats). */
const EMBEDDINGS = { model: "local-embed-ngram", input: Array.from({ length: 32 }, (_, i) => `sentence number ${i} about cats and mats`), dimensions: 256, encoding_format: "float" };

const vectors = (text: string) => (JSON.parse(text) as { data: { embedding: number[] }[] }).data.map((d) => d.embedding);
const SMALL_CHAT = { model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], max_tokens: 4 };

/** A chat stream of over 1 KB and a speech answer, asked for compressed: sent as they are. */
async function expectNotCompressed(host: HostName): Promise<void> {
  const stream = await send(host, "/v1/chat/completions", {
    acceptEncoding: "gzip, deflate, br",
    json: { model: "local-chat-sim", messages: [{ role: "user", content: "a long answer, please" }], max_tokens: 300, stream: true },
  });
  expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
  expect(stream.headers["content-encoding"]).toBeUndefined();
  expect(stream.body.length).toBeGreaterThan(1024);
  expect(stream.body.toString("utf8")).toContain("data: [DONE]");

  const speech = await send(host, "/v1/audio/speech", { acceptEncoding: "gzip, deflate, br", json: { model: "local-tts", input: "Compressed twice is once too often.", voice: "alloy" } });
  expect(speech.status).toBe(200);
  expect(speech.headers["content-type"]).toBe("audio/mpeg");
  expect(speech.headers["content-encoding"]).toBeUndefined();
  expect(speech.body.length).toBeGreaterThan(1024);
}

describe("on the data plane", () => {
  it("GET /v1/models (over 1 KB): brotli when offered, gzip when only it is, with Vary and the compressed length; each decodes to the answer of a client that does not ask", async () => {
    const plain = await send("node", "/v1/models");
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThanOrEqual(1024);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(varies(plain)).toBe(true);
    const models = JSON.parse(plain.body.toString("utf8"));
    for (const [acceptEncoding, coding] of [
      ["gzip, deflate, br", "br"],
      ["gzip, deflate", "gzip"],
      ["br;q=0.5, gzip;q=0.9", "gzip"],
      ["*", "br"],
    ] as const) {
      const answer = await send("node", "/v1/models", { acceptEncoding });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-encoding"], acceptEncoding).toBe(coding);
      expect(varies(answer)).toBe(true);
      expect(answer.headers["content-type"]).toBe("application/json");
      expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
      expect(answer.body.length).toBeLessThan(plain.body.length / 3);
      expect(JSON.parse(decoded(answer))).toEqual(models);
    }
  });

  it("POST /v1/embeddings of many vectors: compressed, to the same vectors", async () => {
    const plain = await send("node", "/v1/embeddings", { json: EMBEDDINGS });
    const br = await send("node", "/v1/embeddings", { json: EMBEDDINGS, acceptEncoding: "gzip, br" });
    expect(plain.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(vectors(decoded(br))).toEqual(vectors(plain.body.toString("utf8")));
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
  });

  it("not compressed: for a client that refuses every coding, an answer under 1 KB, an event stream, audio", async () => {
    const refused = await send("node", "/v1/models", { acceptEncoding: "identity, br;q=0, gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(refused.body.toString("utf8")).object).toBe("list");

    const small = await send("node", "/v1/chat/completions", { acceptEncoding: "gzip, br", json: SMALL_CHAT });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(small.body.toString("utf8")).object).toBe("chat.completion");

    await expectNotCompressed("node");
  });

  it("HEAD /v1/models: the headers of the compressed answer, no body", async () => {
    const get = await send("node", "/v1/models", { acceptEncoding: "br" });
    const head = await send("node", "/v1/models", { method: "HEAD", acceptEncoding: "br" });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-encoding"]).toBe("br");
    expect(varies(head)).toBe(true);
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
  });
});

describe("on the Next.js host", () => {
  it("JSON compressed by Next.js (gzip), decoding to the data plane's answer; no second coding of ours", async () => {
    const plain = await send("node", "/v1/embeddings", { json: EMBEDDINGS });
    const gzip = await send("next", "/v1/embeddings", { json: EMBEDDINGS, acceptEncoding: "gzip, deflate, br" });
    expect(gzip.status).toBe(200);
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(varies(gzip)).toBe(true);
    expect(vectors(decoded(gzip))).toEqual(vectors(plain.body.toString("utf8")));
    expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
    const models = await send("next", "/v1/models", { acceptEncoding: "gzip" });
    expect(JSON.parse(decoded(models)).object).toBe("list");
  });

  it("not compressed: an event stream, audio", async () => {
    await expectNotCompressed("next");
  });
});

describe.each(["node", "next"] as const)("the official SDK on the %s host", (host) => {
  it("reads compressed answers (its fetch asks for them)", async () => {
    const openai = new OpenAI({ apiKey: secret, baseURL: `${base(host)}/v1`, maxRetries: 0 });
    const { data, response } = await openai.models.list().withResponse();
    expect(response.headers.get("content-encoding")).toMatch(/^(gzip|br)$/);
    expect(data.data.map((m) => m.id)).toContain("local-embed-ngram");
    const embedded = await openai.embeddings.create({ ...EMBEDDINGS, encoding_format: "float" }).withResponse();
    expect(embedded.response.headers.get("content-encoding")).toMatch(/^(gzip|br)$/);
    expect(embedded.data.data).toHaveLength(32);
    expect(embedded.data.data[0]!.embedding).toHaveLength(256);
  });
});
