// Request bodies on a real node:http server: whether they came with the head or in pieces later,
// the bytes read are the bytes sent, and the limit holds.
import { once } from "node:events";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBodyBytes } from "../../server/transport/request-body";

let server: Server;
let port: number;
const LIMIT = 1000;

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    await new Promise((r) => setImmediate(r)); // as the gateway does: the credential first
    try {
      const bytes = await readBodyBytes(req, LIMIT, req.headers["content-length"]);
      res.end(JSON.stringify({ length: bytes.byteLength, text: bytes.toString("utf8"), ended: await ended(req) }));
    } catch (err) {
      res.statusCode = (err as { status?: number }).status ?? 500;
      res.end();
    }
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

/** Whether the request stream ends (within a second). */
function ended(req: IncomingMessage): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 1000);
    req.once("end", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function send(pieces: string[], headers: Record<string, string | number>): Promise<{ status: number; body: string }> {
  const req = request({ port, host: "127.0.0.1", method: "POST", path: "/", headers });
  const answer = once(req, "response") as Promise<[IncomingMessage]>;
  for (const [i, piece] of pieces.entries()) {
    if (i > 0) await new Promise((r) => setTimeout(r, 30));
    req.write(piece);
  }
  req.end();
  const [res] = await answer;
  let body = "";
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode!, body };
}

describe("readBodyBytes", () => {
  it("reads a small body that came with the head, and the request stream still ends", async () => {
    const text = JSON.stringify({ model: "m", messages: [{ role: "user", content: "héllo" }] });
    const r = await send([text], { "content-length": Buffer.byteLength(text) });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ length: Buffer.byteLength(text), text, ended: true });
  });

  it("reads a body that arrives in pieces after the head, with a length or chunked", async () => {
    const pieces = ['{"a":', '"b"', "}"];
    const text = pieces.join("");
    const sized = await send(pieces, { "content-length": Buffer.byteLength(text) });
    expect(JSON.parse(sized.body)).toEqual({ length: text.length, text, ended: true });
    const chunked = await send(pieces, { "transfer-encoding": "chunked" });
    expect(JSON.parse(chunked.body)).toEqual({ length: text.length, text, ended: true });
  });

  it("refuses a body over the limit, declared or not (413)", async () => {
    const big = "x".repeat(LIMIT + 1);
    expect((await send([big], { "content-length": big.length })).status).toBe(413);
    expect((await send([big.slice(0, 600), big.slice(600)], { "transfer-encoding": "chunked" })).status).toBe(413);
  });
});
