// Property: whatever a client sends to /v1 (declared routes with hostile parameters, bodies of the
// wrong shape, broken bytes, raw paths), the gateway answers within seconds, never with a 5xx,
// and every 4xx is the OpenAI error shape in JSON. A fixed seed and a few hundred cases here; `npm run fuzz` runs thousands.
import http from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace } from "../helpers";
import { fuzzRequest, type FuzzRequest } from "../fuzz/arbitraries";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const ANSWER_WITHIN_MS = 15_000;

type Answer = { status: number; contentType: string; body: string };

/** Sends a request as given, path included (fetch would normalise `..` and `//`). */
function send(req: FuzzRequest, key: string): Promise<Answer> {
  const url = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        // The length stated, as clients do: node:http would otherwise send a DELETE's body unframed.
        headers: { ...req.headers, authorization: `Bearer ${key}`, connection: "close", ...(req.body ? { "content-length": String(req.body.length) } : {}) },
        timeout: ANSWER_WITHIN_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    r.on("timeout", () => r.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS} ms`)));
    r.on("error", reject);
    r.end(req.body ?? undefined);
  });
}

function checkAnswer(req: FuzzRequest, a: Answer): void {
  const where = `${req.label}: ${req.method} ${req.path.slice(0, 120)} -> ${a.status} ${a.body.slice(0, 200)}`;
  // A 5xx is a bug.
  expect(a.status, where).toBeLessThan(500);
  // No redirects: a path the server cleans up (`//v1/models`, `/v1/../health`) is answered, not moved.
  if (req.path.startsWith("/v1") || req.path.startsWith("//v1") || req.path.startsWith("/health/")) expect(a.status, where).not.toBe(308);
  if (a.status < 400 || req.method === "HEAD") return;
  expect(a.contentType, where).toMatch(/^application\/json/);
  const error = (JSON.parse(a.body) as { error?: { message?: unknown; type?: unknown; code?: unknown } }).error;
  expect(typeof error?.message, where).toBe("string");
  expect(typeof error?.type, where).toBe("string");
}

describe("fuzzing every /v1 route", () => {
  it(`${RUNS} generated requests (seed ${SEED}): no 5xx, no hang, errors in the OpenAI shape`, { timeout: 60_000 + RUNS * 500 }, async () => {
    // Little credit: billed calls that pass validation are refused (402) rather than queueing work.
    const { secret } = await newWorkspace("0.0001");
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (req) => {
        checkAnswer(req, await send(req, secret));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
