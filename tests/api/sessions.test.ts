// Session tokens: minted by POST /v1/sessions with a workspace key, used by the official openai
// SDK as its API key on every route the plan allows, billed to the workspace and recorded with
// the plan and subject; every refusal in the OpenAI error shape; revocation on every instance
// within a second; tokens of an identity provider the workspace trusts.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, jwtVerify, createLocalJWKSet, decodeProtectedHeader, decodeJwt, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { createPlan, deletePlan } from "../../server/identity/plans/manage-plans";
import { addIssuer, listIssuers, removeIssuer } from "../../server/identity/sessions/trusted-issuers";
import { currentSigner } from "../../server/identity/sessions/signing-keys";
import { baseUrl, client, newWorkspace, raw, until } from "../helpers";
import { createJob, waitForJob } from "../helpers-video";
import { startGatewayInstance, watchPropagation, type GatewayInstance } from "../instances";

const CHAT = "local-chat-sim";
const EMBED = "local-embed-ngram";
const IMAGE = "local-image";
const ask = (text: string) => [{ role: "user" as const, content: text }];

async function mint(key: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await raw("/v1/sessions", { method: "POST", key, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function workspaceWithPlan(fields: Parameters<typeof createPlan>[1] = { name: "app users" }) {
  const ws = await newWorkspace("10");
  const plan = await createPlan(ws.workspace.id, fields);
  return { ...ws, plan };
}

const errorOf = async (p: Promise<unknown>) => ((await p.then(() => null, (e) => e)) as { status: number; code: string; error: { type: string; message: string } });

describe("minting", () => {
  it("answers a session whose token is an ES256 JWT with the documented claims, verifiable with the published JWKS", async () => {
    const { secret, plan, workspace } = await workspaceWithPlan({ name: "free", max_ttl_seconds: 600 });
    const before = Math.floor(Date.now() / 1000);
    const { status, body } = await mint(secret, { plan: plan.id, subject: "user-42" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: "session", id: expect.stringMatching(/^sess_/), subject: "user-42", plan: plan.id, spend_cap: null });
    expect(body.expires_at - before).toBeGreaterThanOrEqual(599);
    expect(body.expires_at - before).toBeLessThanOrEqual(601);
    const header = decodeProtectedHeader(body.token);
    expect(header).toMatchObject({ alg: "ES256", typ: "JWT", kid: expect.any(String) });
    const jwks = await (await raw("/.well-known/jwks.json")).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(header.kid);
    const { payload } = await jwtVerify(body.token, createLocalJWKSet(jwks), { issuer: "model-gateway", audience: "model-gateway/v1" });
    expect(payload).toMatchObject({ sub: "user-42", jti: body.id, gw_workspace: workspace.id, gw_plan: plan.id, exp: body.expires_at });
    expect(typeof payload.iat).toBe("number");
    // The plan may be named instead of given by id.
    expect((await mint(secret, { plan: "free", subject: "user-43", expires_in: 60 })).body).toMatchObject({ plan: plan.id });
  });

  it("refuses a lifetime beyond the plan's, an unknown plan, another workspace's plan and a missing subject with 400", async () => {
    const { secret, plan } = await workspaceWithPlan({ name: "short", max_ttl_seconds: 120 });
    const other = await workspaceWithPlan({ name: "theirs" });
    const cases: [Record<string, unknown>, string][] = [
      [{ plan: plan.id, subject: "u", expires_in: 121 }, "expires_in"],
      [{ plan: "plan_nope", subject: "u" }, "plan"],
      [{ plan: other.plan.id, subject: "u" }, "plan"],
      [{ plan: plan.id }, "subject"],
      [{ plan: plan.id, subject: "u", spend_cap: "-1" }, "spend_cap"],
    ];
    for (const [body, param] of cases) {
      const res = await mint(secret, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ type: "invalid_request_error", param });
    }
  });

  it("a session token cannot mint another session, nor revoke one (403)", async () => {
    const { secret, plan } = await workspaceWithPlan();
    const { body } = await mint(secret, { plan: plan.id, subject: "u" });
    const again = await mint(body.token, { plan: plan.id, subject: "someone-else" });
    expect(again.status).toBe(403);
    expect(again.body.error).toMatchObject({ type: "permission_error", code: "permission_denied" });
    const del = await raw(`/v1/sessions/${body.id}`, { method: "DELETE", key: body.token });
    expect(del.status).toBe(403);
  });
});

describe("a minted token as the openai SDK's API key", () => {
  it("serves chat, streams, responses, embeddings and images, billed to the workspace with the plan and subject", async () => {
    const { secret, plan, workspace } = await workspaceWithPlan();
    const { body } = await mint(secret, { plan: plan.id, subject: "alice" });
    const openai = client(body.token);
    const chat = await openai.chat.completions.create({ model: CHAT, messages: ask("hello"), max_tokens: 16 });
    expect(chat.choices[0]!.message.content).toBeTruthy();
    const stream = await openai.chat.completions.create({ model: CHAT, messages: ask("stream"), max_tokens: 16, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    const response = await openai.responses.create({ model: CHAT, input: "hi there" });
    expect(response.status).toBe("completed");
    const embeddings = await openai.embeddings.create({ model: EMBED, input: ["a", "b"] });
    expect(embeddings.data).toHaveLength(2);
    const image = await openai.images.generate({ model: IMAGE, prompt: "a red circle", size: "256x256" });
    expect(image.data?.[0]?.b64_json).toBeTruthy();
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id }, orderBy: { createdAt: "asc" } });
    expect(events.map((e) => e.endpoint).sort()).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/embeddings", "/v1/images/generations", "/v1/responses"]);
    for (const e of events) expect(e).toMatchObject({ planId: plan.id, subject: "alice", apiKeyId: null });
  });

  it("creates a video job, settled to the workspace with the plan and subject on its usage and the subject's spend counters", async () => {
    const { secret, plan, workspace } = await workspaceWithPlan({ name: "video", daily_cap: "5" });
    const { body } = await mint(secret, { plan: plan.id, subject: "vera" });
    const openai = client(body.token);
    const created = await createJob(openai, { model: "local-video", prompt: "a fox", seconds: 1, size: "320x180" });
    const { job } = await waitForJob(openai, created.id);
    expect(job.status).toBe("completed");
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: created.id } });
    expect(event).toMatchObject({ planId: plan.id, subject: "vera", apiKeyId: null, endpoint: "/v1/videos" });
    const counters = await db.spendCounter.findMany({ where: { workspaceId: workspace.id } });
    expect(counters.map((c) => c.counter).sort()).toEqual([expect.stringMatching(/^subject:vera\|day:/), expect.stringMatching(/^subject:vera\|month:/)]);
    for (const c of counters) expect(c.spent.toString()).toBe(event.cost.toString());
  });

  it("a subject's open video jobs count against its caps: a second job while the first renders is 402 budget_exceeded", async () => {
    const { secret, plan } = await workspaceWithPlan({ name: "one video a day", daily_cap: "0.04" });
    const vera = client((await mint(secret, { plan: plan.id, subject: "wanda" })).body.token);
    const other = client((await mint(secret, { plan: plan.id, subject: "xavier" })).body.token);
    const spec = { model: "local-video", seconds: 1, size: "320x180" }; // reserves 0.025 USD
    const first = await createJob(vera, { ...spec, prompt: "a slow fox [sim:slow]" });
    const second = await errorOf(createJob(vera, { ...spec, prompt: "another fox" }));
    expect(second).toMatchObject({ status: 402, code: "budget_exceeded" });
    expect(second.error.message).toContain("daily spend cap");
    // Another subject of the plan has its own cap.
    await createJob(other, { ...spec, prompt: "someone else's fox" });
    expect((await waitForJob(vera, first.id)).job.status).toBe("completed");
    // Settled, the first job's cost is in the counter: a second one still does not fit.
    expect(await errorOf(createJob(vera, { ...spec, prompt: "a fox, later" }))).toMatchObject({ status: 402, code: "budget_exceeded" });
  });

  it("a model outside the plan is 403 model_not_allowed and costs nothing", async () => {
    const { secret, workspace } = await workspaceWithPlan({ name: "embeddings only", models: [EMBED] });
    const { body } = await mint(secret, { plan: "embeddings only", subject: "bob" });
    const err = await errorOf(client(body.token).chat.completions.create({ model: CHAT, messages: ask("hi"), max_tokens: 4 }));
    expect(err.status).toBe(403);
    expect(err).toMatchObject({ code: "model_not_allowed", error: { type: "permission_error" } });
    await client(body.token).embeddings.create({ model: EMBED, input: "ok" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
    // The catalog it sees is the plan's.
    expect((await client(body.token).models.list()).data.map((m) => m.id)).toEqual([EMBED]);
    expect(await errorOf(client(body.token).models.retrieve(CHAT))).toMatchObject({ status: 404, code: "model_not_found" });
  });

  it("every answer to a token whose plan has limits carries the x-ratelimit headers, free calls too", async () => {
    const { secret } = await workspaceWithPlan({ name: "limited", rpm: 100, tpm: 100_000 });
    const { body } = await mint(secret, { plan: "limited", subject: "frank" });
    const { response } = await client(body.token).models.list().withResponse();
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("100");
    expect(response.headers.get("x-ratelimit-limit-tokens")).toBe("100000");
    expect(response.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+(ms|s)$|^1m0s$/);
    const chat = await client(body.token).chat.completions.create({ model: CHAT, messages: ask("hi"), max_tokens: 4 }).withResponse();
    expect(Number(chat.response.headers.get("x-ratelimit-remaining-requests"))).toBeLessThan(100);
    const missing = await raw("/v1/models/no-such-model", { key: body.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-ratelimit-limit-requests")).toBe("100");
  });
});

describe("refused tokens", () => {
  it("expired 401 token_expired; bad signature, wrong audience, unknown kid 401 invalid_token; revoked 401 token_revoked", async () => {
    const { secret, plan, workspace } = await workspaceWithPlan();
    const call = (token: string) => errorOf(client(token).chat.completions.create({ model: CHAT, messages: ask("hi"), max_tokens: 4 }));

    const short = (await mint(secret, { plan: plan.id, subject: "u", expires_in: 1 })).body;
    await new Promise((r) => setTimeout(r, 2100));
    expect(await call(short.token)).toMatchObject({ status: 401, code: "token_expired" });

    const good = (await mint(secret, { plan: plan.id, subject: "u" })).body;
    const [h, p, s] = good.token.split(".");
    const flipped = `${h}.${p}.${s.startsWith("A") ? "B" : "A"}${s.slice(1)}`;
    expect(await call(flipped)).toMatchObject({ status: 401, code: "invalid_token" });

    const signer = await currentSigner();
    const claims = { gw_workspace: workspace.id, gw_plan: plan.id };
    const forged = (aud: string, kid = signer.kid) =>
      new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid }).setIssuer("model-gateway").setAudience(aud).setSubject("u").setJti(good.id).setIssuedAt().setExpirationTime("5m").sign(signer.privateKey);
    expect(await call(await forged("someone-else"))).toMatchObject({ status: 401, code: "invalid_token" });
    expect(await call(await forged("model-gateway/v1", "kid-nobody-knows"))).toMatchObject({ status: 401, code: "invalid_token" });
    // The same claims with the right audience and kid are accepted: the refusals above are theirs.
    await client(await forged("model-gateway/v1")).chat.completions.create({ model: CHAT, messages: ask("hi"), max_tokens: 4 });

    const del = await raw(`/v1/sessions/${good.id}`, { method: "DELETE", key: secret });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ object: "session", id: good.id, revoked_at: expect.any(Number) });
    // Every process learns of the revocation by NOTIFY: the process that did not serve the DELETE
    // may take one call to hear it on a loaded machine (seen once in CI). Refused within a second.
    const refused = await until(() => call(good.token), (e) => e?.code === "token_revoked", 1000);
    expect(refused.value).toMatchObject({ status: 401, code: "token_revoked" });
  });

  it("deleting the plan ends its sessions; another workspace's session id is 404", async () => {
    const { secret, plan } = await workspaceWithPlan();
    const other = await workspaceWithPlan();
    const { body } = await mint(secret, { plan: plan.id, subject: "u" });
    const theirs = await raw(`/v1/sessions/${body.id}`, { method: "DELETE", key: other.secret });
    expect(theirs.status).toBe(404);
    await client(body.token).models.list();
    const since = performance.now();
    await deletePlan(plan.workspace_id, plan.id);
    const committedMs = performance.now() - since;
    // Deleted from outside the gateway's processes (as from a dashboard served by another
    // instance): they learn of it by NOTIFY, within the documented second.
    const seen = await watchPropagation(since, () => errorOf(client(body.token).models.list()), (err) => err !== null);
    expect(seen.seen).toMatchObject({ status: 401, code: "token_revoked" });
    expect(seen.lastStaleMs - committedMs).toBeLessThan(1000);
  });
});

describe("revocation across instances", () => {
  let second: GatewayInstance;
  beforeAll(async () => {
    second = await startGatewayInstance();
  }, 120_000);
  afterAll(async () => second?.stop());

  const status = (base: string, token: string) =>
    fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => (await r.body?.cancel(), r.status));

  it("a revoked session, and every session of a revoked subject, is refused by both instances within 1 s", async () => {
    const { secret, plan } = await workspaceWithPlan();
    const one = (await mint(secret, { plan: plan.id, subject: "carol" })).body;
    const two = (await mint(secret, { plan: plan.id, subject: "dave" })).body;
    const three = (await mint(secret, { plan: plan.id, subject: "dave" })).body;
    const instances = [baseUrl(), second.url];
    for (const base of instances) for (const t of [one, two, three]) expect(await status(base, t.token)).toBe(200);

    let since = performance.now();
    let watching = Promise.all(instances.map((base) => watchPropagation(since, () => status(base, one.token), (s) => s === 401)));
    expect((await raw(`/v1/sessions/${one.id}`, { method: "DELETE", key: secret })).status).toBe(200);
    let committedMs = performance.now() - since;
    for (const r of await watching) {
      expect(r.seen).toBe(401);
      expect(r.lastStaleMs - committedMs).toBeLessThan(1000);
    }

    since = performance.now();
    watching = Promise.all(
      instances.flatMap((base) => [two, three].map((t) => watchPropagation(since, () => status(base, t.token), (s) => s === 401))),
    );
    const res = await raw("/v1/sessions/revoke", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: JSON.stringify({ subject: "dave" }) });
    expect(await res.json()).toEqual({ object: "session.revocation", subject: "dave", revoked: 2 });
    committedMs = performance.now() - since;
    for (const r of await watching) {
      expect(r.seen).toBe(401);
      expect(r.lastStaleMs - committedMs).toBeLessThan(1000);
    }
  });
});

describe("a trusted identity provider", () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let idpKey: CryptoKey;
  const kid = "idp-key-1";

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256", { extractable: true });
    idpKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: "RS256", use: "sig" };
    jwksServer = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer.listen(0, "127.0.0.1", r));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise<void>((r) => jwksServer.close(() => r())));

  it("its tokens work directly, with the subject and plan from the configured claims; a wrong audience or key is invalid_token", async () => {
    const { plan, workspace } = await workspaceWithPlan({ name: "pro" });
    const issuer = `https://idp-${workspace.id}.example.com/`;
    await addIssuer(workspace.id, { issuer, jwks_url: jwksUrl, audience: "my-app", subject_claim: "email", plan_claim: "tier" });
    const token = (aud: string, claims: Record<string, unknown> = { email: "erin@example.com", tier: "pro" }, key: CryptoKey = idpKey) =>
      new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid }).setIssuer(issuer).setAudience(aud).setSubject("idp-user-1").setIssuedAt().setExpirationTime("5m").sign(key);

    const chat = await client(await token("my-app")).chat.completions.create({ model: CHAT, messages: ask("hi"), max_tokens: 8 });
    expect(chat.choices).toHaveLength(1);
    const event = await db.usageEvent.findFirstOrThrow({ where: { workspaceId: workspace.id } });
    expect(event).toMatchObject({ planId: plan.id, subject: "erin@example.com" });

    const call = async (t: string) => errorOf(client(t).models.list());
    expect(await call(await token("another-app"))).toMatchObject({ status: 401, code: "invalid_token" });
    const stranger = (await generateKeyPair("RS256")).privateKey;
    expect(await call(await token("my-app", undefined, stranger))).toMatchObject({ status: 401, code: "invalid_token" });
    expect(await call(await token("my-app", { email: "x@example.com", tier: "no-such-plan" }))).toMatchObject({ status: 401, code: "invalid_token" });
    const expired = await new SignJWT({ email: "e", tier: "pro" }).setProtectedHeader({ alg: "RS256", kid }).setIssuer(issuer).setAudience("my-app").setIssuedAt(1).setExpirationTime(2).sign(idpKey);
    expect(await call(expired)).toMatchObject({ status: 401, code: "token_expired" });
    // Once the workspace stops trusting the issuer, its tokens (even one verified before) are refused.
    const trusted = await token("my-app");
    await client(trusted).models.list();
    await removeIssuer(workspace.id, (await listIssuers(workspace.id))[0]!.id);
    const { value } = await until(() => call(trusted), (e) => e?.status === 401, 5000);
    expect(value).toMatchObject({ status: 401, code: "invalid_token" });
  });

  it("its JWKS is fetched only through the outbound guard: a refused address or a redirect fails the token closed (401), the refused server is never asked", async () => {
    const { workspace } = await workspaceWithPlan({ name: "pro" });
    const asked: string[] = [];
    // A server on 127.0.0.2 (not in the test stack's OUTBOUND_ALLOW) that would serve the right keys.
    const hidden = createServer((req, res) => {
      asked.push(req.url!);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((r) => hidden.listen(0, "127.0.0.2", r));
    const hiddenUrl = `http://127.0.0.2:${(hidden.address() as AddressInfo).port}/jwks.json`;
    // An allowed server that redirects there.
    const redirecting = createServer((_req, res) => res.writeHead(302, { location: hiddenUrl }).end());
    await new Promise<void>((r) => redirecting.listen(0, "127.0.0.1", r));
    try {
      const token = (iss: string) =>
        new SignJWT({ tier: "pro" }).setProtectedHeader({ alg: "RS256", kid }).setIssuer(iss).setAudience("my-app").setSubject("u").setIssuedAt().setExpirationTime("5m").sign(idpKey);
      const call = async (t: string) => errorOf(client(t).models.list());

      // Stored without the configuration-time check (as a row from before it, or a name that resolves elsewhere today).
      const direct = `https://idp-direct-${workspace.id}.example.com/`;
      await db.trustedIssuer.create({ data: { id: newId("iss"), workspaceId: workspace.id, issuer: direct, jwksUrl: hiddenUrl, audience: "my-app", subjectClaim: "sub", planClaim: "tier" } });
      const refused = await call(await token(direct));
      expect(refused).toMatchObject({ status: 401, code: "invalid_token" });
      expect(refused.error.message).toContain("could not be fetched from its JWKS URL");

      const moved = `https://idp-moved-${workspace.id}.example.com/`;
      await addIssuer(workspace.id, { issuer: moved, jwks_url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/jwks.json`, audience: "my-app", plan_claim: "tier" });
      const redirected = await call(await token(moved));
      expect(redirected).toMatchObject({ status: 401, code: "invalid_token" });
      expect(redirected.error.message).toContain("redirect");
      expect(asked).toEqual([]);
    } finally {
      await Promise.all([hidden, redirecting].map((s) => new Promise<void>((r) => s.close(() => r()))));
    }
  });

  it("decodes nothing it cannot trust: garbage that looks like a JWT is invalid_token", async () => {
    const res = await raw("/v1/models", { key: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln" });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatchObject({ code: "invalid_token" });
    expect(decodeJwt("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln")).toEqual({ sub: "x" });
  });
});
