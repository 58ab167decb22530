// The vertex wire format without the gateway: where the service and its methods are, how a node
// authenticates (a token per request from its service account, or an API key), the Messages body
// Vertex takes, the refusals mapped (context overflow, quota, access), and the adapter against the
// stand-in: Gemini and Claude chats, embeddings in batches with their token counts, the health check.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamTarget } from "../../server/providers/http";
import { UpstreamFailure } from "../../server/providers/upstream-failure";
import { vertexAdapter } from "../../server/providers/vertex/chat";
import { vertexMessagesBody } from "../../server/providers/vertex/claude";
import { vertexFailure } from "../../server/providers/vertex/errors";
import { methodPath, publisherOf } from "../../server/providers/vertex/paths";
import { vertexSpec } from "../../server/providers/vertex/spec";
import { ZModelCard } from "../../server/routing/catalog/model-card";
import { fakeVector, TEXT } from "../fakes/gemini-upstream";
import { startVertexUpstream, tokenCount, type VertexFake } from "../fakes/vertex-upstream";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let fake: VertexFake;
let target: UpstreamTarget;
const OPTIONS = { maxOutputTokens: 1000 };
/** A node's place: every Vertex path names its project and location. */
const PLACE = { project: "p-12345", location: "us-east5" };

beforeAll(async () => {
  fake = await startVertexUpstream();
  const settings = { project: fake.project, location: fake.location };
  const auth = vertexSpec.auth(settings, null, { service_account: fake.serviceAccount("unit") });
  target = { baseUrl: fake.url, apiKey: null, wire: "vertex", headers: auth.headers, sign: auth.sign, cloud: settings };
});
afterAll(() => fake.close());

describe("vertex: endpoints, paths, auth", () => {
  it("the endpoint is the location's, or the global one; a missing project or location is a 400 naming the project", () => {
    expect(vertexSpec.endpoint({ project: "my-project", location: "europe-west4" })).toBe("https://europe-west4-aiplatform.googleapis.com");
    expect(vertexSpec.endpoint({ project: "my-project", location: "global" })).toBe("https://aiplatform.googleapis.com");
    expect(() => vertexSpec.endpoint({ location: "us-east5" })).toThrow(expect.objectContaining({ status: 400, param: "project" }));
    expect(() => vertexSpec.endpoint({ project: "my-project" })).toThrow(expect.objectContaining({ status: 400, param: "project" }));
  });

  it("Claude models are Anthropic's publisher, the rest Google's; a version's @ stays in the path", () => {
    expect(publisherOf("claude-sonnet-4-5@20250929")).toBe("anthropic");
    expect(publisherOf("gemini-2.5-flash")).toBe("google");
    expect(methodPath({ project: "p-12345", location: "us-east5" }, "claude-sonnet-4-5@20250929", "rawPredict")).toBe(
      "/v1/projects/p-12345/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict",
    );
  });

  it("an API key is sent as x-goog-api-key with no signer; without one, each request gets the service account's bearer token", async () => {
    expect(vertexSpec.auth(PLACE, "AQ.key", null)).toEqual({ headers: { "x-goog-api-key": "AQ.key" } });
    const first = await target.sign!({ method: "POST", url: new URL(fake.url), headers: {} });
    expect(first.authorization).toMatch(/^Bearer ya29\.test-/);
    expect(await target.sign!({ method: "POST", url: new URL(fake.url), headers: {} })).toEqual(first);
    expect(fake.tokenRequests.filter((r) => r.email?.startsWith("unit@"))).toHaveLength(1);
  });

  it("a key file that is not a service account's, or whose token_uri is plain http elsewhere, is refused without reaching anyone", async () => {
    const key = fake.serviceAccount("odd");
    const external = vertexSpec.auth(PLACE, null, { service_account: { ...key, type: "external_account" } }).sign!;
    await expect(external({ method: "POST", url: new URL(fake.url), headers: {} })).rejects.toThrow(/not a service account key/);
    const cleartext = vertexSpec.auth(PLACE, null, { service_account: { ...key, token_uri: "http://tokens.example.com/token" } }).sign!;
    await expect(cleartext({ method: "POST", url: new URL(fake.url), headers: {} })).rejects.toThrow(/must be an https URL/);
    expect(fake.tokenRequests.filter((r) => r.email?.startsWith("odd@"))).toEqual([]);
  });

  it("the Messages body Vertex takes: no model, its anthropic_version", () => {
    expect(vertexMessagesBody({ model: "claude-x", max_tokens: 5, messages: [] })).toEqual({ max_tokens: 5, messages: [], anthropic_version: "vertex-2023-10-16" });
  });
});

describe("vertex: refusals", () => {
  const failure = (status: number, body: unknown, retryAfter?: string) => vertexFailure(new UpstreamFailure("status", `the node answered HTTP ${status}`, status, body, retryAfter)) as UpstreamFailure;

  it("a prompt too long is 400 context_length_exceeded, from Gemini's body or Anthropic's", () => {
    const gemini = failure(400, { error: { code: 400, message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", status: "INVALID_ARGUMENT" } });
    expect(gemini).toMatchObject({ status: 400, body: { error: { code: "context_length_exceeded", param: "messages" } } });
    const claude = failure(400, { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 215000 tokens > 200000 maximum" } });
    expect(claude).toMatchObject({ status: 400, body: { error: { code: "context_length_exceeded" } } });
    const other = failure(400, { error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" } });
    expect(other.body).toEqual({ error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" } });
  });

  it("a 429's Retry-After: Vertex's header, else its RetryInfo delay, else a few seconds", () => {
    expect(failure(429, null, "3").retryAfter).toBe("3");
    expect(failure(429, { error: { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "12.5s" }] } }).retryAfter).toBe("13");
    expect(failure(429, { error: { message: "Resource exhausted." } }).retryAfter).toBe("5");
  });

  it("401 and 403 name what the operator must fix, and drop the node's body", () => {
    const denied = failure(403, { error: { code: 403, message: "Permission denied", status: "PERMISSION_DENIED" } });
    expect(denied).toMatchObject({ status: 403, body: null, message: expect.stringContaining("roles/aiplatform.user") });
    expect(denied.message).toContain("PERMISSION_DENIED");
    expect(failure(401, null).message).toContain("did not accept the node's access token");
  });
});

describe("vertex: the adapter against the stand-in", () => {
  it("a Gemini chat and its stream, a Claude chat and its stream", async () => {
    const gemini = await vertexAdapter.complete(target, { model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }] }, OPTIONS);
    expect((gemini as Any).choices[0].message.content).toBe(TEXT.join(""));
    const opened = await vertexAdapter.openStream(target, { model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }] }, OPTIONS);
    expect(fake.last!.path).toMatch(/:streamGenerateContent\?alt=sse$/);
    await opened.response.body.dump();
    const claude = await vertexAdapter.complete(target, { model: "claude-haiku-4-5@20251001", messages: [{ role: "user", content: "hi" }] }, OPTIONS);
    expect(fake.last!.path).toMatch(/publishers\/anthropic\/models\/claude-haiku-4-5@20251001:rawPredict$/);
    expect(fake.last!.body).toEqual({ anthropic_version: "vertex-2023-10-16", max_tokens: 1000, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect((claude as Any).choices[0].message.content).toBe("Hello! How can I help you today?");
  });

  it("messages passthrough only for Claude models", () => {
    expect(vertexAdapter.messages!(target, { model: "gemini-2.5-flash", max_tokens: 5, messages: [] }, undefined)).toBeNull();
  });

  it("embeddings: gemini-embedding-001 one text a call, text-embedding models many; usage the sum of Vertex's token counts", async () => {
    const texts = ["alpha", "beta", "gamma"];
    const before = fake.requests.length;
    const one = (await vertexAdapter.embed!(target, { model: "gemini-embedding-001", input: texts }, OPTIONS)) as Any;
    expect(fake.requests.length - before).toBe(3);
    expect(one.data.map((d: Any) => d.embedding)).toEqual(texts.map((t) => fakeVector(t)));
    const many = (await vertexAdapter.embed!(target, { model: "text-embedding-005", input: texts, encoding_format: "base64" }, OPTIONS)) as Any;
    expect(fake.requests.length - before).toBe(4);
    const bytes = Buffer.from(many.data[2].embedding as string, "base64");
    expect(Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(fakeVector("gamma"));
    const total = texts.reduce((n, t) => n + tokenCount(t), 0);
    expect(many.usage).toEqual({ prompt_tokens: total, total_tokens: total });
  });

  it("the model list: the known models as valid unpriced cards, after a countTokens call that must pass", async () => {
    const before = fake.countTokens;
    const models = await vertexSpec.listModels(target, 5_000);
    expect(fake.countTokens).toBe(before + 1);
    for (const m of models) expect(ZModelCard.safeParse(m).success, m.id).toBe(true);
    expect(models.map((m) => m.id)).toEqual(expect.arrayContaining(["gemini-2.5-flash", "claude-sonnet-4-5@20250929", "text-embedding-005"]));
    const stranger = vertexSpec.auth(target.cloud!, null, { service_account: fake.serviceAccount("unit-stranger", false) });
    await expect(vertexSpec.listModels({ ...target, sign: stranger.sign }, 5_000)).rejects.toThrow(/no Google access token could be had .*invalid_grant/);
  });
});
