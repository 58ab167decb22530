// A node's model list (GET {url}/models), read from a stand-in server: the node's key is sent as a
// bearer token, and each failure is an UpstreamFailure whose kind and short message (what a node's
// last error and a failed registration show) say what went wrong.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listUpstreamModels } from "../../server/providers/openai-compatible/list-models";
import { UpstreamFailure } from "../../server/providers/upstream-failure";

let server: Server;
let base: string;
let seenAuthorization: string | undefined;

function answer(req: IncomingMessage, res: ServerResponse): void {
  seenAuthorization = req.headers.authorization;
  const [, kind] = req.url!.split("/");
  if (kind === "ok") return void res.end(JSON.stringify({ data: [{ id: "m-1" }, { object: "no id" }] }));
  if (kind === "denied") return void res.writeHead(401).end(JSON.stringify({ error: { message: "bad key" } }));
  if (kind === "garbled") return void res.end("not json");
  // "slow": never answers within the test's timeout.
  setTimeout(() => res.end("{}"), 2_000).unref();
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

async function failureOf(promise: Promise<unknown>): Promise<UpstreamFailure> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamFailure);
  return err as UpstreamFailure;
}

describe("a node's model list", () => {
  it("lists the models that have an id, with the key as a bearer token", async () => {
    expect(await listUpstreamModels(`${base}/ok/`, "sk-node", 1_000)).toEqual([{ id: "m-1" }]);
    expect(seenAuthorization).toBe("Bearer sk-node");
    await listUpstreamModels(`${base}/ok`, null, 1_000);
    expect(seenAuthorization).toBeUndefined();
  });

  it("an error status: `HTTP <status>`", async () => {
    const failure = await failureOf(listUpstreamModels(`${base}/denied`, "sk-node", 1_000));
    expect([failure.kind, failure.message, failure.status]).toEqual(["status", "HTTP 401", 401]);
  });

  it("an answer without a data array: `invalid /models response`", async () => {
    const failure = await failureOf(listUpstreamModels(`${base}/garbled`, null, 1_000));
    expect([failure.kind, failure.message]).toEqual(["protocol", "invalid /models response"]);
  });

  it("no answer in time: `timed out`", async () => {
    const failure = await failureOf(listUpstreamModels(`${base}/slow`, null, 100));
    expect([failure.kind, failure.message]).toEqual(["timeout", "timed out"]);
  });

  it("no server: `connection failed`, never the key", async () => {
    const failure = await failureOf(listUpstreamModels("http://127.0.0.1:1/v1", "sk-secret", 1_000));
    expect([failure.kind, failure.message]).toEqual(["connect", "connection failed"]);
  });
});

describe("whether another node may do better", () => {
  it("not for a status about the request itself; yes for others, timeouts and lost connections", () => {
    for (const status of [400, 413, 422]) expect(new UpstreamFailure("status", "x", status).retryable).toBe(false);
    for (const status of [401, 404, 429, 500, 503]) expect(new UpstreamFailure("status", "x", status).retryable).toBe(true);
    expect(new UpstreamFailure("timeout", "x").retryable).toBe(true);
    expect(new UpstreamFailure("connect", "x").retryable).toBe(true);
  });
});
