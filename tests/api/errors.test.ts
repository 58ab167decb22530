import http from "node:http";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { client, raw } from "../helpers";

const key = () => inject("demoKey");
async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("x-request-id")).toMatch(/^req_\w+$/);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  return body.error;
}

describe("health", () => {
  it("GET /health answers {ok, uptimeMs} without a credential, with a request id", async () => {
    const res = await raw("/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const body = await res.json();
    expect(body).toEqual({ ok: true, uptimeMs: expect.any(Number) });
    expect(body.uptimeMs).toBeGreaterThan(0);
  });
});

describe("credentials", () => {
  it("a missing key is 401 invalid_api_key", async () => {
    await expectError(await raw("/v1/models"), 401, "invalid_api_key");
  });

  it("a malformed Authorization header is 401 invalid_api_key", async () => {
    for (const header of ["Basic abc", "Bearer", "Bearer not-a-gateway-key", "sk-gw-xyz"]) {
      await expectError(await raw("/v1/models", { headers: { authorization: header } }), 401, "invalid_api_key");
    }
  });

  it("an unknown key of the right shape is 401 invalid_api_key, through the SDK too", async () => {
    const err = await client(`sk-gw-${"A".repeat(40)}`).models.list().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.error).toMatchObject({ code: "invalid_api_key", param: null });
  });

  it("the credential is checked before routing: an unknown path without a key is 401", async () => {
    await expectError(await raw("/v1/does-not-exist"), 401, "invalid_api_key");
  });
});

describe("the fine-tuning routes of part 4.6 are served", () => {
  it("an unknown job is 404 in the error shape, through the SDK too", async () => {
    const error = await expectError(await raw("/v1/fine_tuning/jobs/ftjob-unknown", { key: key() }), 404, "fine_tuning_job_not_found");
    expect(error.param).toBe("fine_tuning_job_id");
    const err = await client(key()).fineTuning.jobs.retrieve("ftjob-unknown").catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("routing errors", () => {
  it("an unknown /v1 path is 404 in the error shape", async () => {
    const error = await expectError(await raw("/v1/nothing/here", { key: key() }), 404, "unknown_url");
    expect(error.message).toContain("/v1/nothing/here");
    await expectError(await raw("/v1/models/a/b/c", { key: key() }), 404, "unknown_url");
  });

  it("a wrong method on a served path is 405 with an Allow header", async () => {
    const res = await raw("/v1/models", { method: "POST", key: key(), body: "{}" });
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    await expectError(await raw("/v1/network/status", { method: "DELETE", key: key() }), 405, "method_not_allowed");
    await expectError(await raw("/health", { method: "POST" }), 405, "method_not_allowed");
  });

  it("a wrong method on a path with parameters is 405", async () => {
    const res = await raw("/v1/fine_tuning/jobs/ftjob_1/cancel", { method: "GET", key: key() });
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("request bodies", () => {
  it("malformed JSON is 400 invalid_json", async () => {
    const res = await raw("/v1/moderations", { method: "POST", key: key(), body: "{not json", headers: { "content-type": "application/json" } });
    await expectError(res, 400, "invalid_json");
  });

  it("a body declared larger than the limit is 413 request_too_large", async () => {
    const body = "x".repeat(4 * 1024 * 1024 + 1);
    const res = await raw("/v1/moderations", { method: "POST", key: key(), body, headers: { "content-type": "application/json" } });
    await expectError(res, 413, "request_too_large");
  });

  it("a chunked body that grows past the limit is refused with 413 before the client finished sending", async () => {
    const url = new URL(`${inject("baseUrl")}/v1/moderations`);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const result = await new Promise<{ status: number; body: string; sentAtResponse: number }>((resolve, reject) => {
      const req = http.request(
        { method: "POST", host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: `Bearer ${key()}`, "content-type": "application/json", "transfer-encoding": "chunked" } },
        (res) => {
          const sentAtResponse = sent;
          answered = true;
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => {
            resolve({ status: res.statusCode!, body, sentAtResponse });
            req.destroy();
          });
        },
      );
      req.on("error", (err) => (sent > 0 ? undefined : reject(err)));
      // Offer up to 64 MiB; the server stops reading at the limit and answers at once.
      const pump = () => {
        if (req.destroyed || answered) return;
        if (sent >= 64 * 1024 * 1024) return req.end();
        sent += chunk.length;
        if (req.write(chunk)) setImmediate(pump);
        else req.once("drain", pump);
      };
      pump();
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body).error.code).toBe("request_too_large");
    expect(result.sentAtResponse).toBeLessThan(32 * 1024 * 1024);
  });
});
