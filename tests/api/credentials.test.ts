// One request, one credential: a workspace key in `Authorization: Bearer` or (as Anthropic-format
// clients send it) in `x-api-key`; two credentials that disagree, or two Authorization headers,
// are refused with 400 ambiguous_credentials rather than served under whichever came first.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace, raw } from "../helpers";

type ErrorBody = { error: { code: string; type: string; message: string; param: string | null } };

/** A GET written by hand, so that a header can be sent twice (fetch joins repeated headers into one). */
async function rawGet(path: string, headers: [string, string][]): Promise<{ status: number; body: string }> {
  const url = new URL(baseUrl());
  const socket = connect(Number(url.port), url.hostname);
  const lines = [`GET ${path} HTTP/1.1`, `host: ${url.host}`, "connection: close", ...headers.map(([n, v]) => `${n}: ${v}`)];
  // Written, not ended: the server closes the connection after its answer (connection: close).
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  let text = "";
  socket.setEncoding("utf8");
  for await (const chunk of socket) text += chunk as string;
  const [head = "", ...rest] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body: rest.join("\r\n\r\n") };
}

const codeOf = async (res: Response) => ((await res.json()) as ErrorBody).error;

describe("credentials", () => {
  it("two Authorization headers: 400 ambiguous_credentials, even when the first alone is valid", async () => {
    const a = await newWorkspace("1");
    const b = await newWorkspace("1");
    const answer = await rawGet("/v1/models", [
      ["authorization", `Bearer ${a.secret}`],
      ["authorization", `Bearer ${b.secret}`],
    ]);
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.body.slice(answer.body.indexOf("{"), answer.body.lastIndexOf("}") + 1)) as ErrorBody;
    expect(body.error).toMatchObject({ code: "ambiguous_credentials", type: "invalid_request_error", param: null });
    expect(body.error.message).toMatch(/more than one Authorization/);
    // One Authorization value listing two credentials is the same ambiguity.
    const joined = await raw("/v1/models", { headers: { authorization: `Bearer ${a.secret}, Bearer ${b.secret}` } });
    expect(joined.status).toBe(400);
    expect((await codeOf(joined)).code).toBe("ambiguous_credentials");
  });

  it("Authorization and x-api-key naming different keys: 400, nothing served; the same key in both is served", async () => {
    const a = await newWorkspace("1");
    const b = await newWorkspace("1");
    const different = await raw("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${a.secret}`, "x-api-key": b.secret, "content-type": "application/json" },
      body: JSON.stringify({ model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], max_tokens: 4 }),
    });
    expect(different.status).toBe(400);
    const error = await codeOf(different);
    expect(error.code).toBe("ambiguous_credentials");
    expect(error.message).toMatch(/Authorization and x-api-key/);
    const same = await raw("/v1/models", { headers: { authorization: `Bearer ${a.secret}`, "x-api-key": a.secret } });
    expect(same.status).toBe(200);
  });

  it("x-api-key alone is a credential (Anthropic-format clients), and so is it beside the x402 placeholder", async () => {
    const a = await newWorkspace("1");
    expect((await raw("/v1/models", { headers: { "x-api-key": a.secret } })).status).toBe(200);
    expect((await raw("/v1/models", { headers: { authorization: "Bearer x402", "x-api-key": a.secret } })).status).toBe(200);
    const wrong = await raw("/v1/models", { headers: { "x-api-key": "sk-gw-not-a-real-key-0000000000000000" } });
    expect(wrong.status).toBe(401);
    expect((await codeOf(wrong)).code).toBe("invalid_api_key");
  });
});
