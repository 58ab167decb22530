// Input that once hung a request or became a 500: each answered at once with a 400 in the
// OpenAI error shape, on every route it reaches.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace, raw } from "../helpers";
import { MAX_JSON_DEPTH } from "../../server/transport/request-body";

const MULTIPART_ROUTES = ["/v1/audio/transcriptions", "/v1/audio/translations", "/v1/images/edits", "/v1/images/variations", "/v1/videos"];

async function expect400(res: Response, param?: string | null) {
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null } };
  expect(body.error.type).toBe("invalid_request_error");
  expect(body.error.message).toBeTruthy();
  if (param !== undefined) expect(body.error.param).toBe(param);
  return body.error;
}

describe("multipart bodies", () => {
  it("a part without a name is a 400 on every multipart route, not a request that never ends", async () => {
    const { secret } = await newWorkspace();
    const boundary = "----gateway-test";
    const body = [`--${boundary}`, "Content-Disposition: form-data", "", "nameless", `--${boundary}`, 'Content-Disposition: form-data; filename="a.bin"', "Content-Type: application/octet-stream", "", "xyz", `--${boundary}--`, ""].join("\r\n");
    for (const path of MULTIPART_ROUTES) {
      const res = await raw(path, {
        method: "POST",
        key: secret,
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      const error = await expect400(res);
      expect(error.message, path).toMatch(/needs a name/);
    }
  });
});

describe("text that PostgreSQL cannot store", () => {
  it("a NUL character or a lone surrogate in a JSON string is a 400 naming where it is", async () => {
    const { secret } = await newWorkspace();
    const cases: [string, string, string][] = [
      ["/v1/responses", `{"model":"local-chat-sim","input":"a\\u0000b","store":true}`, "input"],
      ["/v1/responses", `{"model":"local-chat-sim","input":"\\ud800 alone"}`, "input"],
      ["/v1/videos", `{"model":"local-video","prompt":"fox\\u0000"}`, "prompt"],
      ["/v1/chat/completions", `{"model":"local-chat-sim","messages":[{"role":"user","content":"x\\udc00"}]}`, "messages[0].content"],
      ["/v1/chat/completions", `{"model":"local-chat-sim","messages":[{"role":"user","content":"x"}],"metadata":{"k\\u0000":"v"}}`, "metadata.k\u0000"],
    ];
    for (const [path, body, param] of cases) {
      const res = await raw(path, { method: "POST", key: secret, headers: { "content-type": "application/json" }, body });
      await expect400(res, param);
    }
  });

  it("in a path parameter or a query value too", async () => {
    const { secret } = await newWorkspace();
    await expect400(await raw("/v1/videos/video-%00", { key: secret }), "id");
    await expect400(await raw("/v1/videos?after=%00", { key: secret }), "after");
    await expect400(await raw("/v1/responses/resp_%ED%A0%80", { key: secret }), "id");
  });

  it("a malformed percent-escape in the path is a 400 in the error shape", async () => {
    const { secret } = await newWorkspace();
    await expect400(await raw("/v1/models/%zz", { key: secret }), "id");
  });
});

describe("deeply nested JSON", () => {
  it(`more than ${MAX_JSON_DEPTH} levels is a 400, on the deepest document JSON.parse accepts`, async () => {
    const { secret } = await newWorkspace();
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const nested = "[".repeat(depth) + "]".repeat(depth);
      const res = await raw("/v1/chat/completions", {
        method: "POST",
        key: secret,
        headers: { "content-type": "application/json" },
        body: `{"model":"local-chat-sim","messages":[{"role":"user","content":"hi"}],"metadata":{"deep":${nested}}}`,
      });
      const error = await expect400(res);
      expect(error.message).toMatch(/nested more than/);
    }
  });

  it(`${MAX_JSON_DEPTH} levels and under are accepted as before`, async () => {
    const { secret } = await newWorkspace();
    // A structured-output schema nested a few levels deep, as clients send them.
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 10; i++) schema = { type: "object", properties: { inner: schema }, required: ["inner"] };
    const res = await raw("/v1/chat/completions", {
      method: "POST",
      key: secret,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f", parameters: schema } }] }),
    });
    expect(res.status).toBe(200);
  });
});

/** A GET with the path exactly as given (fetch would resolve `..` and `//` before sending). */
function rawGet(path: string, key: string): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body }));
      })
      .on("error", reject);
  });
}

describe("paths the server would otherwise clean up", () => {
  it("`//`, `.` and `..` in a /v1 path are a 404 in the error shape, never a redirect", async () => {
    const { secret } = await newWorkspace();
    for (const path of ["//v1/models", "/v1//models", "/v1/./models", "/v1/../health", "//health"]) {
      const res = await rawGet(path, secret);
      expect(res.status, path).toBe(404);
      expect(res.type, path).toMatch(/^application\/json/);
      expect((JSON.parse(res.body) as { error: { code: string } }).error.code, path).toBe("unknown_url");
    }
  });
});
