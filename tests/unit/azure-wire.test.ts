// The azure wire format's pieces without a gateway: where each operation goes (deployment paths
// with an api-version, the v1 API without), how a node authenticates (its key, an Entra
// application, a managed identity: App Service's endpoint stood in on plain http), the Entra
// token's cache and refresh, the stream's prompt annotations, and a refused credential told as
// the operator's.
import type { AccessToken } from "@azure/identity";
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { entraSigner, REFRESH_MARGIN_MS } from "../../server/providers/azure/entra-token";
import { modelsPath, operationPath } from "../../server/providers/azure/paths";
import { operatorFacing, REFUSED_CREDENTIALS } from "../../server/providers/azure/refused-credentials";
import { azureSpec } from "../../server/providers/azure/spec";
import { azureStreamTranslator } from "../../server/providers/azure/stream-annotations";
import { freePort } from "../../server/infra/net/free-port";
import { UpstreamFailure } from "../../server/providers/upstream-failure";

const target = (apiVersion?: string) => ({ baseUrl: "https://res.openai.azure.com", apiKey: null, wire: "azure" as const, cloud: apiVersion ? { apiVersion } : {} });
const request = { method: "POST", url: new URL("https://res.openai.azure.com/openai/v1/chat/completions"), headers: {} };
const HOUR = 3_600_000;

describe("azure paths", () => {
  it("an api-version puts the deployment in the path; none uses the v1 API", () => {
    expect(operationPath(target("2024-10-21"), "chat/completions", "gpt 4o")).toBe("/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21");
    expect(operationPath(target("2024-10-21"), "embeddings", "emb")).toBe("/openai/deployments/emb/embeddings?api-version=2024-10-21");
    expect(operationPath(target(), "chat/completions", "gpt4o")).toBe("/openai/v1/chat/completions");
    expect(modelsPath(target("2025-04-01-preview"))).toBe("/openai/deployments?api-version=2022-12-01");
    expect(modelsPath(target())).toBe("/openai/v1/models");
  });
});

describe("azure auth", () => {
  it("a key is the api-key header; Entra credentials or a managed identity sign each call instead", () => {
    expect(azureSpec.auth({}, "k", null)).toEqual({ headers: { "api-key": "k" } });
    const entra = azureSpec.auth({}, "k", { tenant_id: "t", client_id: "c", client_secret: "s" });
    expect(entra.headers).toEqual({});
    expect(entra.sign).toBeTypeOf("function");
    expect(azureSpec.auth({ managedIdentity: true }, null, null).sign).toBeTypeOf("function");
  });

  it("a node with no way to authenticate, or half an Entra application, is refused with what to give", () => {
    expect(() => azureSpec.auth({}, null, null)).toThrow(/--api-key/);
    expect(() => azureSpec.auth({}, null, { tenant_id: "t", client_id: "c" })).toThrow(/--client-secret/);
  });

  it("there is no default endpoint: the resource's address is asked for", () => {
    expect(() => azureSpec.endpoint({})).toThrow("An azure node needs its resource's address (--endpoint https://<resource>.openai.azure.com)");
  });

  it("a managed identity's token from App Service's identity endpoint (IDENTITY_ENDPOINT, IDENTITY_HEADER) through @azure/identity", async () => {
    const seen: { url: string; header: string | undefined }[] = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", header: req.headers["x-identity-header"] as string | undefined });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: "mi-token", expires_on: String(Math.floor(Date.now() / 1000) + 3600), resource: "https://cognitiveservices.azure.com", token_type: "Bearer" }));
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    process.env.IDENTITY_ENDPOINT = `http://127.0.0.1:${port}/msi/token`;
    process.env.IDENTITY_HEADER = "identity-header-secret";
    try {
      const { sign } = azureSpec.auth({ managedIdentity: "11111111-2222-4333-8444-555555555555" }, null, null);
      expect(await sign!(request)).toEqual({ authorization: "Bearer mi-token" });
      expect(await sign!(request)).toEqual({ authorization: "Bearer mi-token" });
      expect(seen).toHaveLength(1);
      const query = new URL(seen[0]!.url, "http://x").searchParams;
      expect(query.get("resource")).toBe("https://cognitiveservices.azure.com");
      expect(query.get("client_id")).toBe("11111111-2222-4333-8444-555555555555");
      expect(seen[0]!.header).toBe("identity-header-secret");
    } finally {
      delete process.env.IDENTITY_ENDPOINT;
      delete process.env.IDENTITY_HEADER;
      await new Promise((r) => server.close(r));
    }
  });
});

describe("the Entra token's cache", () => {
  function credential(lifetimeMs: number) {
    let now = 1_000_000;
    let fetches = 0;
    let fail = false;
    let release: (() => void) | undefined;
    const gate = { hold: false };
    const cred = {
      async getToken(): Promise<AccessToken> {
        fetches += 1;
        if (gate.hold) await new Promise<void>((r) => (release = r));
        if (fail) throw new Error("AADSTS50000: Entra is down");
        return { token: `t${fetches}`, expiresOnTimestamp: now + lifetimeMs };
      },
    };
    return {
      sign: entraSigner(async () => cred, () => now),
      advance: (ms: number) => (now += ms),
      fetches: () => fetches,
      failing: (v: boolean) => (fail = v),
      gate,
      release: () => release?.(),
    };
  }

  it("fetched once, reused until the margin before its expiry, then fetched again", async () => {
    const c = credential(HOUR);
    expect(await c.sign(request)).toEqual({ authorization: "Bearer t1" });
    c.advance(HOUR - REFRESH_MARGIN_MS - 1);
    expect(await c.sign(request)).toEqual({ authorization: "Bearer t1" });
    expect(c.fetches()).toBe(1);
    c.advance(1);
    expect(await c.sign(request)).toEqual({ authorization: "Bearer t2" });
    expect(c.fetches()).toBe(2);
  });

  it("concurrent calls share one fetch", async () => {
    const c = credential(HOUR);
    c.gate.hold = true;
    const calls = [c.sign(request), c.sign(request), c.sign(request)];
    await new Promise((r) => setImmediate(r));
    c.release();
    expect(await Promise.all(calls)).toEqual(Array(3).fill({ authorization: "Bearer t1" }));
    expect(c.fetches()).toBe(1);
  });

  it("a failed refresh keeps the old token while it is valid, and fails once it expired", async () => {
    const c = credential(HOUR);
    await c.sign(request);
    c.failing(true);
    c.advance(HOUR - 60_000);
    expect(await c.sign(request)).toEqual({ authorization: "Bearer t1" });
    c.advance(60_000);
    await expect(c.sign(request)).rejects.toThrow("Entra is down");
  });
});

describe("azure streams and refusals", () => {
  it("the prompt annotation chunk is dropped; the model named as the deployment; choices (with their filter results) and the usage chunk pass; [DONE] ends", () => {
    const t = azureStreamTranslator("gpt4o-prod");
    const annotation = JSON.stringify({ id: "", model: "", choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] });
    const delta = (model: string) => JSON.stringify({ id: "c", model, choices: [{ index: 0, delta: { content: 'say "model":"x"' }, content_filter_results: { hate: { filtered: false } } }] });
    const usage = (model: string) => JSON.stringify({ id: "c", model, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    // Azure names the model the deployment runs; the chunks leave named after the deployment.
    expect([annotation, delta("gpt-4o-2024-08-06"), usage("gpt-4o-2024-08-06")].flatMap((d) => t.push(d))).toEqual([delta("gpt4o-prod"), usage("gpt4o-prod")]);
    expect(t.done).toBe(false);
    expect(t.push("[DONE]")).toEqual([]);
    expect(t.done).toBe(true);
  });

  it("a 401 or 403 becomes the operator's message, still retryable on another node; other failures stay as they were", () => {
    const refused = operatorFacing(new UpstreamFailure("status", "the node answered HTTP 403", 403, { error: { code: "PermissionDenied" } })) as UpstreamFailure;
    expect(refused.message).toBe(`${REFUSED_CREDENTIALS} (HTTP 403)`);
    expect(refused).toMatchObject({ status: 403, retryable: true });
    const limited = new UpstreamFailure("status", "the node answered HTTP 429", 429);
    expect(operatorFacing(limited)).toBe(limited);
  });
});
