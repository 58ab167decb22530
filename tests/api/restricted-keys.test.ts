// Restricted keys and minting: a key given some operation groups and models calls only those
// (403 insufficient_permissions, model_not_allowed), sees only its models in GET /v1/models, and
// mints session tokens for no plan that allows more than itself (403 plan_not_allowed, nothing
// written). Keys made before restrictions existed keep every permission. The official openai SDK
// is the client wherever it can make the call.
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { createKey, type CreateKeyInput } from "../../server/identity/keys/create-key";
import { revokeKey } from "../../server/identity/keys/revoke-key";
import { createPlan } from "../../server/identity/plans/manage-plans";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { client, newWorkspace, raw } from "../helpers";
import { CHAT, EMBED } from "../plans-fixtures";

type Refusal = { status: number; code: string | null; param: string | null; message: string };

const refusalOf = async (p: Promise<unknown>): Promise<Refusal> => {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as { status: number; code: string | null; param: string | null; error: { message: string } } | null;
  if (!err) throw new Error("expected the call to be refused");
  return { status: err.status, code: err.code, param: err.param ?? null, message: err.error.message };
};

async function keyWith(fields: Omit<CreateKeyInput, "workspaceId">, workspaceId: string) {
  const { key, secret } = await db.$transaction((tx) => createKey(tx, { workspaceId, name: "restricted", ...fields }));
  return { key, secret, openai: client(secret) };
}

async function mint(secret: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await raw("/v1/sessions", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const sessionsOf = (workspaceId: string) => db.planSession.count({ where: { workspaceId } });
const chatOnce = (openai: ReturnType<typeof client>) => openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hi" }], max_tokens: 4 });

describe("minting never escalates", () => {
  it("a key on a chat-only plan asking for a plan with every model gets 403 plan_not_allowed and nothing is minted; for its own plan it mints", async () => {
    const { workspace } = await newWorkspace("5");
    const chatOnly = await createPlan(workspace.id, { name: "chat only", models: [CHAT] });
    const everything = await createPlan(workspace.id, { name: "everything" });
    const { secret } = await keyWith({ planId: chatOnly.id }, workspace.id);

    const before = await sessionsOf(workspace.id);
    for (const plan of [everything.id, "everything"]) {
      const refused = await mint(secret, { plan, subject: "user-1" });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: "plan_not_allowed", param: "plan", type: "permission_error" });
      expect(refused.body.error.message).toContain(chatOnly.id);
    }
    expect(await sessionsOf(workspace.id)).toBe(before);

    const minted = await mint(secret, { plan: chatOnly.id, subject: "user-1" });
    expect(minted.status).toBe(200);
    expect(minted.body).toMatchObject({ object: "session", plan: chatOnly.id });
    expect(await sessionsOf(workspace.id)).toBe(before + 1);
  });

  it("a key limited to some models mints only for a plan limited to those models", async () => {
    const { workspace } = await newWorkspace("5");
    const everything = await createPlan(workspace.id, { name: "everything" });
    const wider = await createPlan(workspace.id, { name: "chat and embeddings", models: [CHAT, EMBED] });
    const chatOnly = await createPlan(workspace.id, { name: "chat only", models: [CHAT] });
    const { secret } = await keyWith({ models: [CHAT] }, workspace.id);
    const before = await sessionsOf(workspace.id);
    for (const plan of [everything, wider]) {
      const refused = await mint(secret, { plan: plan.id, subject: "u" });
      expect(refused.status, plan.name).toBe(403);
      expect(refused.body.error.code).toBe("plan_not_allowed");
    }
    expect((await mint(secret, { plan: wider.id, subject: "u" })).body.error.message).toContain(EMBED);
    expect(await sessionsOf(workspace.id)).toBe(before);
    expect((await mint(secret, { plan: chatOnly.id, subject: "u" })).status).toBe(200);
  });

  it("a key limited to some MCP tools mints only for a plan whose tool patterns lie within its own, and the plan shows them", async () => {
    const { workspace } = await newWorkspace("5");
    const everyTool = await createPlan(workspace.id, { name: "every tool" });
    const wider = await createPlan(workspace.id, { name: "github and slack", tools: ["github__*", "slack__*"] });
    const within = await createPlan(workspace.id, { name: "github reads", tools: ["github__get*", "github__list_issues", "github__get*"] });
    expect(within.tools).toEqual(["github__get*", "github__list_issues"]);
    expect(everyTool.tools).toEqual([]);
    const { key, secret } = await keyWith({ permissions: ["mcp", "sessions", "text"], tools: ["github__*"] }, workspace.id);
    expect(key).toMatchObject({ permissions: ["text", "sessions", "mcp"], tools: ["github__*"] });
    const before = await sessionsOf(workspace.id);
    for (const plan of [everyTool, wider]) {
      const refused = await mint(secret, { plan: plan.id, subject: "u" });
      expect(refused.status, plan.name).toBe(403);
      expect(refused.body.error).toMatchObject({ code: "plan_not_allowed", type: "permission_error" });
    }
    expect((await mint(secret, { plan: wider.id, subject: "u" })).body.error.message).toContain("`slack__*`");
    expect(await sessionsOf(workspace.id)).toBe(before);
    const minted = await mint(secret, { plan: within.id, subject: "u" });
    expect(minted.status).toBe(200);
    expect(decodeJwt(minted.body.token as string).gw_permissions).toEqual(["text", "mcp"]);
  });

  it("a key with a spend limit mints nothing (what tokens spend is not counted against its limit): 403 plan_not_allowed, nothing written", async () => {
    const { workspace } = await newWorkspace("5");
    const plan = await createPlan(workspace.id, { name: "capped", models: [CHAT], daily_cap: "1" });
    const { secret } = await keyWith({ spendLimit: "0.5" }, workspace.id);
    const before = await sessionsOf(workspace.id);
    const refused = await mint(secret, { plan: plan.id, subject: "u", spend_cap: "0.1" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "plan_not_allowed", type: "permission_error" });
    expect(refused.body.error.message).toMatch(/spend limit/);
    expect(await sessionsOf(workspace.id)).toBe(before);
    // The same workspace's key without a limit mints for the plan.
    const { secret: unlimited } = await keyWith({}, workspace.id);
    expect((await mint(unlimited, { plan: plan.id, subject: "u" })).status).toBe(200);
  });

  it("a token never outlives the key that minted it: its expiry is the key's at the latest, and revoking the key revokes it", async () => {
    const { workspace } = await newWorkspace("5");
    const plan = await createPlan(workspace.id, { name: "long", models: [CHAT], max_ttl_seconds: 86_400 });
    const keyExpiry = Date.now() + 120_000;
    const { secret } = await keyWith({ expiresAt: new Date(keyExpiry) }, workspace.id);
    const minted = await mint(secret, { plan: plan.id, subject: "u" });
    expect(minted.status).toBe(200);
    expect(minted.body.expires_at).toBe(Math.floor(keyExpiry / 1000));
    expect(decodeJwt(minted.body.token as string).exp).toBe(Math.floor(keyExpiry / 1000));

    const { key, secret: longLived } = await keyWith({}, workspace.id);
    const token = (await mint(longLived, { plan: plan.id, subject: "u" })).body.token as string;
    expect((await raw("/v1/models", { key: token })).status).toBe(200);
    await revokeKey(key.id, workspace.id);
    const deadline = Date.now() + 3000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await raw("/v1/models", { key: token })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 100));
    }
    const refused = await raw("/v1/models", { key: token });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("token_revoked");
  });

  it("a key without the sessions permission cannot mint (403 insufficient_permissions) and nothing is minted", async () => {
    const { workspace } = await newWorkspace("5");
    const plan = await createPlan(workspace.id, { name: "p", models: [CHAT] });
    const { secret } = await keyWith({ permissions: ["text"] }, workspace.id);
    const before = await sessionsOf(workspace.id);
    const refused = await mint(secret, { plan: plan.id, subject: "u" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "insufficient_permissions", param: null });
    expect(refused.body.error.message).toBe("This API key lacks the `sessions` permission needed for POST /v1/sessions.");
    expect(await sessionsOf(workspace.id)).toBe(before);
  });

  it("a token minted by a restricted key carries the key's groups (less sessions) and is held to them", async () => {
    const { workspace } = await newWorkspace("5");
    const plan = await createPlan(workspace.id, { name: "p", models: [CHAT, EMBED] });
    const { secret } = await keyWith({ permissions: ["sessions", "text"] }, workspace.id);
    const { body } = await mint(secret, { plan: plan.id, subject: "u" });
    expect(decodeJwt(body.token).gw_permissions).toEqual(["text"]);
    const user = client(body.token);
    expect((await chatOnce(user)).choices).toHaveLength(1);
    const refused = await refusalOf(user.embeddings.create({ model: EMBED, input: "x" }));
    expect(refused).toMatchObject({ status: 403, code: "insufficient_permissions" });
    expect(refused.message).toContain("session token lacks the `embeddings` permission");
    // A token never mints: this one lacks the group already (an unrestricted key's token is refused permission_denied, sessions.test.ts).
    const again = await mint(body.token, { plan: plan.id, subject: "v" });
    expect(again.status).toBe(403);
    expect(again.body.error.message).toContain("session token lacks the `sessions` permission");
  });
});

describe("a key on a plan manages only its plan's sessions", () => {
  it("it cannot revoke another plan's session (404, still alive), nor its subject's sessions under another plan", async () => {
    const { workspace, secret: unrestricted } = await newWorkspace("5");
    const mine = await createPlan(workspace.id, { name: "mine", models: [CHAT] });
    const theirs = await createPlan(workspace.id, { name: "theirs" });
    const { secret } = await keyWith({ planId: mine.id }, workspace.id);
    const other = (await mint(unrestricted, { plan: theirs.id, subject: "alice" })).body;
    const own = (await mint(secret, { plan: mine.id, subject: "alice" })).body;

    const del = await raw(`/v1/sessions/${other.id}`, { method: "DELETE", key: secret });
    expect(del.status).toBe(404);
    const bySubject = await raw("/v1/sessions/revoke", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: JSON.stringify({ subject: "alice" }) });
    expect(await bySubject.json()).toMatchObject({ subject: "alice", revoked: 1 });
    const alive = await db.planSession.findMany({ where: { workspaceId: workspace.id }, select: { id: true, revokedAt: true } });
    expect(alive.find((s) => s.id === other.id)?.revokedAt).toBeNull();
    expect(alive.find((s) => s.id === own.id)?.revokedAt).not.toBeNull();
    expect((await chatOnce(client(other.token))).choices).toHaveLength(1);
  });
});

describe("restricted keys", () => {
  it("a text-only key gets 403 insufficient_permissions naming embeddings, models or files, and 200 on chat", async () => {
    const { workspace } = await newWorkspace("5");
    const { openai, secret } = await keyWith({ permissions: ["text"] }, workspace.id);
    expect((await chatOnce(openai)).choices).toHaveLength(1);
    const embeddings = await refusalOf(openai.embeddings.create({ model: EMBED, input: "x" }));
    expect(embeddings).toEqual({
      status: 403,
      code: "insufficient_permissions",
      param: null,
      message: "This API key lacks the `embeddings` permission needed for POST /v1/embeddings.",
    });
    expect((await refusalOf(openai.models.list())).message).toContain("`models` permission needed for GET /v1/models");
    // Files and fine-tuning belong to groups of their own.
    const files = await raw("/v1/files", { key: secret });
    expect(files.status).toBe(403);
    expect(((await files.json()) as { error: { message: string } }).error.message).toContain("`files`");
    const tuning = await raw("/v1/fine_tuning/jobs", { key: secret });
    expect(tuning.status).toBe(403);
    expect(((await tuning.json()) as { error: { message: string } }).error.message).toContain("`fine_tuning`");
  });

  it("a key limited to one model gets model_not_allowed on another and sees only its model", async () => {
    const { workspace } = await newWorkspace("5");
    const { openai } = await keyWith({ models: [CHAT] }, workspace.id);
    expect((await chatOnce(openai)).model).toBe(CHAT);
    expect(await refusalOf(openai.embeddings.create({ model: EMBED, input: "x" }))).toMatchObject({ status: 403, code: "model_not_allowed", param: "model" });
    const listed = [];
    for await (const m of openai.models.list()) listed.push(m.id);
    expect(listed).toEqual([CHAT]);
    expect(await refusalOf(openai.models.retrieve(EMBED))).toMatchObject({ status: 404, code: "model_not_found" });
  });

  it("a key's models narrow its plan's: only models in both are listed and callable", async () => {
    const { workspace } = await newWorkspace("5");
    const plan = await createPlan(workspace.id, { name: "both", models: [CHAT, EMBED] });
    const { openai } = await keyWith({ planId: plan.id, models: [EMBED] }, workspace.id);
    const listed = [];
    for await (const m of openai.models.list()) listed.push(m.id);
    expect(listed).toEqual([EMBED]);
    expect(await refusalOf(chatOnce(openai))).toMatchObject({ status: 403, code: "model_not_allowed" });
    expect((await openai.embeddings.create({ model: EMBED, input: "x" })).data).toHaveLength(1);
  });

  it("keys made before restrictions (columns empty or null) keep every permission and model", async () => {
    const { workspace, key, openai, secret } = await newWorkspace("5");
    const plan = await createPlan(workspace.id, { name: "all" });
    const check = async () => {
      expect((await chatOnce(openai)).choices).toHaveLength(1);
      expect((await openai.embeddings.create({ model: EMBED, input: "x" })).data).toHaveLength(1);
      const listed = [];
      for await (const m of openai.models.list()) listed.push(m.id);
      expect(listed).toEqual(expect.arrayContaining([CHAT, EMBED]));
      expect((await mint(secret, { plan: plan.id, subject: "u" })).status).toBe(200);
    };
    expect(await db.apiKey.findUniqueOrThrow({ where: { id: key.id }, select: { permissions: true, models: true } })).toEqual({ permissions: [], models: [] });
    await check();
    // A row as the migration left it, had its default not applied.
    await db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ hash: string }[]>`UPDATE "ApiKey" SET permissions = NULL, models = NULL WHERE id = ${key.id} RETURNING hash`;
      await notify(tx, Channel.keyChanged, row!.hash);
    });
    await new Promise((r) => setTimeout(r, 500)); // the gateway drops its cached key on the NOTIFY
    await check();
  });
});
