// Guardrails beyond chat calls: batch lines, the response cache (a hit checked like a live
// answer, a key made of the redacted input), the request log's capture (only the redacted input
// kept), the guardrail.blocked webhook, a moderation model of the catalog (the built-in one), the
// schema check on answers, Presidio's and OpenAI's moderation shapes as outside services, the CLI,
// and two instances (a guardrail added while both hold the workspace's rules applies on both
// within a second).
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhook } from "../../server/alerts/webhooks";
import { addGuardrail, attachGuardrail } from "../../server/guardrails/guardrail-store";
import { db } from "../../server/infra/db/client";
import { createKey } from "../../server/identity/keys/create-key";
import { logBody } from "../../server/request-log/capture/body-store";
import { setCaptureSettings } from "../../server/request-log/capture/capture-settings";
import { setCacheSettings } from "../../server/response-cache/settings";
import { cli } from "../cli-process";
import { startReceiver, type Receiver } from "../fakes/webhook-receiver";
import { askModel, guardedWorkspace, logRow, startGuardFixture, type GuardFixture } from "../guardrail-fixtures";
import { expectApiError, newWorkspace, until } from "../helpers";
import { startGatewayInstance, type GatewayInstance } from "../instances";

const MODEL = "gr-everywhere";
let fx: GuardFixture;
let receiver: Receiver;

beforeAll(async () => {
  fx = await startGuardFixture(MODEL);
  receiver = await startReceiver();
});
afterAll(async () => {
  await fx.close();
  await receiver.close();
});

const lastSent = () => JSON.parse(fx.fake.bodies.at(-1)!) as { messages: { content: string }[] };

describe("guardrails everywhere", () => {
  it("batch lines: a blocked line fails with guardrail_blocked, the other runs redacted", async () => {
    const { openai, workspace } = await newWorkspace("5");
    await addGuardrail(workspace.id, { name: "b-deny", type: "deny", stage: "input", action: "block", words: ["forbidden"] });
    await addGuardrail(workspace.id, { name: "b-pii", type: "pii", stage: "input", action: "redact" });
    await attachGuardrail(workspace.id, "b-deny", {});
    await attachGuardrail(workspace.id, "b-pii", {});
    const line = (id: string, text: string) => JSON.stringify({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model: MODEL, messages: [{ role: "user", content: text }], max_tokens: 8 } });
    const file = await openai.files.create({ file: await toFile(Buffer.from(`${line("ok", "mail batch@example.com")}\n${line("no", "a forbidden thing")}\n`), "b.jsonl"), purpose: "batch" });
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const { value: done } = await until(() => openai.batches.retrieve(batch.id), (b) => ["completed", "failed"].includes(b.status), 60_000);
    expect(done.status).toBe("completed");
    expect(done.request_counts).toMatchObject({ completed: 1, failed: 1 });
    const errors = (await (await openai.files.content(done.error_file_id!)).text()).trim().split("\n").map((l) => JSON.parse(l) as { custom_id: string; response: { status_code: number; body: { error: { code: string } } } | null; error: { code: string } | null });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.custom_id).toBe("no");
    expect(errors[0]!.response?.body.error.code ?? errors[0]!.error?.code).toBe("guardrail_blocked");
    expect(fx.fake.bodies.some((b) => b.includes("mail [EMAIL]"))).toBe(true);
    expect(fx.fake.bodies.some((b) => b.includes("batch@example.com"))).toBe(false);
  });

  it("the response cache keys on the redacted input, and a hit is checked on output like a live answer", async () => {
    fx.fake.answer = "ring 555-867-5309 now";
    try {
      const { openai, workspace } = await newWorkspace("5");
      await setCacheSettings(workspace.id, { default_on: true });
      await addGuardrail(workspace.id, { name: "c-pii", type: "pii", stage: "input", action: "redact" });
      await attachGuardrail(workspace.id, "c-pii", {});
      const first = await askModel(openai, MODEL, "my mail is one@example.com");
      expect(first.response.headers.get("x-gateway-cache")).toBe("miss");
      const calls = fx.fake.calls;
      // In the table (a few milliseconds behind the answer), every process finds the entry.
      await until(() => db.responseCacheEntry.count({ where: { workspaceId: workspace.id } }), (n) => n === 1, 5000);
      // Another address redacts to the same prompt: a hit.
      const second = await askModel(openai, MODEL, "my mail is two@example.com");
      expect(second.response.headers.get("x-gateway-cache")).toBe("hit");
      expect(second.data.choices[0]!.message.content).toBe("ring 555-867-5309 now");
      // An output guardrail added now blocks the stored answer when it is a hit.
      await addGuardrail(workspace.id, { name: "c-out", type: "pii", stage: "output", action: "block", entities: ["phone"] });
      await attachGuardrail(workspace.id, "c-out", {});
      const { value } = await until(() => askModel(openai, MODEL, "my mail is three@example.com").then(() => null, (e: { status: number; code: string }) => e), (e) => e !== null, 2000);
      expect(value).toMatchObject({ status: 400, code: "guardrail_blocked" });
      expect(fx.fake.calls).toBe(calls);
    } finally {
      fx.fake.answer = undefined;
    }
  });

  it("a key's output redaction changes its own answer, never the cached one other keys are answered with", async () => {
    fx.fake.answer = "ring 555-867-5309 now";
    try {
      const { openai, workspace } = await newWorkspace("5");
      await setCacheSettings(workspace.id, { default_on: true });
      await addGuardrail(workspace.id, { name: "k-out", type: "pii", stage: "output", action: "redact", entities: ["phone"] });
      const keyed = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "redacted" }));
      await attachGuardrail(workspace.id, "k-out", { key: keyed.key.id });
      const redacted = new OpenAI({ apiKey: keyed.secret, baseURL: openai.baseURL, maxRetries: 0 });
      const calls = fx.fake.calls;
      // The redacting key asks first (a miss), then the other key twice (hits), then the redacting key again (a hit).
      const first = await askModel(redacted, MODEL, "my number?");
      expect(first.response.headers.get("x-gateway-cache")).toBe("miss");
      expect(first.data.choices[0]!.message.content).toBe("ring [PHONE] now");
      await until(() => db.responseCacheEntry.count({ where: { workspaceId: workspace.id } }), (n) => n === 1, 5000);
      for (let i = 0; i < 2; i++) {
        const plain = await askModel(openai, MODEL, "my number?");
        expect(plain.response.headers.get("x-gateway-cache")).toBe("hit");
        expect(plain.data.choices[0]!.message.content).toBe("ring 555-867-5309 now");
      }
      const again = await askModel(redacted, MODEL, "my number?");
      expect(again.response.headers.get("x-gateway-cache")).toBe("hit");
      expect(again.data.choices[0]!.message.content).toBe("ring [PHONE] now");
      const plain = await askModel(openai, MODEL, "my number?");
      expect(plain.data.choices[0]!.message.content).toBe("ring 555-867-5309 now");
      expect(fx.fake.calls).toBe(calls + 1);
    } finally {
      fx.fake.answer = undefined;
    }
  });

  it("the responses API, conversation items and embeddings input are checked and redacted too", async () => {
    const { openai } = await guardedWorkspace({ name: "r-pii", type: "pii", stage: "input", action: "redact" });
    await openai.responses.create({ model: MODEL, instructions: "reply to ann@example.com", input: [{ role: "user", content: [{ type: "input_text", text: "and to bob@example.com" }] }] });
    const sent = fx.fake.bodies.at(-1)!;
    expect(sent).toContain("reply to [EMAIL]");
    expect(sent).toContain("and to [EMAIL]");
    expect(sent).not.toContain("example.com");
    const conversation = await openai.conversations.create({ items: [{ type: "message", role: "user", content: "call me at +44 20 7946 0958" }] });
    await openai.conversations.items.create(conversation.id, { items: [{ type: "message", role: "user", content: [{ type: "input_text", text: "or write to cat@example.com" }] }] });
    const items = JSON.stringify((await openai.conversations.items.list(conversation.id)).data);
    expect(items).toContain("call me at [PHONE]");
    expect(items).toContain("or write to [EMAIL]");
    expect(items).not.toContain("7946");
    const denied = await guardedWorkspace({ name: "e-deny", type: "deny", stage: "input", action: "block", words: ["forbidden"] });
    await expectApiError(denied.openai.embeddings.create({ model: "local-embed-ngram", input: ["fine", "a forbidden text"] }), 400, null, "guardrail_blocked");
    expect((await denied.openai.embeddings.create({ model: "local-embed-ngram", input: "fine" })).data).toHaveLength(1);
  });

  it("the request log's capture keeps the input as redacted", async () => {
    const { openai, workspace } = await guardedWorkspace({ name: "cap-pii", type: "pii", stage: "input", action: "redact" });
    await setCaptureSettings(workspace.id, { enabled: true });
    const { response } = await askModel(openai, MODEL, "captured card 4111-1111-1111-1111");
    const row = await logRow(response.headers.get("x-request-id")!);
    const { value: body } = await until(() => logBody(workspace.id, row.id, row.createdAt), (b) => b !== null, 5000);
    expect(JSON.stringify(body!.request)).toContain("captured card [CARD]");
    expect(JSON.stringify(body!.request)).not.toContain("4111");
  });

  it("a block is a guardrail.blocked webhook event, without the text", async () => {
    const { openai, workspace } = await guardedWorkspace({ name: "w-deny", type: "deny", stage: "input", action: "block", words: ["classified"] });
    const hook = await createWebhook(workspace.id, { url: receiver.url("/gr-blocked"), events: ["guardrail.blocked"] });
    expect(hook.id).toBeTruthy();
    const err = await expectApiError(askModel(openai, MODEL, "classified plans"), 400, null, "guardrail_blocked");
    const { value } = await until(async () => receiver.at("/gr-blocked"), (r) => r.length >= 1, 15_000);
    expect(value[0]!.json).toMatchObject({ type: "guardrail.blocked", workspace_id: workspace.id, data: { request_id: err.requestID, guardrail: "w-deny", type: "deny", stage: "input", rule: "word", model: MODEL } });
    expect(value[0]!.body).not.toContain("classified plans");
  });

  it("moderation with the built-in local-moderation model blocks a flagged input, at the thresholds given", async () => {
    const { openai } = await guardedWorkspace({ name: "m", type: "moderation", stage: "input", action: "block", model: "local-moderation" });
    const err = await expectApiError(askModel(openai, MODEL, "you are a fucking idiot"), 400, null, "guardrail_blocked");
    expect(err.message).toContain("harassment");
    expect((await askModel(openai, MODEL, "have a nice day")).data.choices[0]!.message.content).toBe("fake answer");
    const lax = await guardedWorkspace({ name: "m-lax", type: "moderation", stage: "input", action: "block", model: "local-moderation", thresholds: { harassment: 0.95 } });
    expect((await askModel(lax.openai, MODEL, "you are a fucking idiot")).data.choices[0]!.message.content).toBe("fake answer");
  });

  it("schema: an answer that is not JSON valid against the schema is blocked, a valid one passes", async () => {
    const schema = { type: "object", required: ["city"], properties: { city: { type: "string" } } };
    const { openai } = await guardedWorkspace({ name: "s", type: "schema", stage: "output", action: "block", schema });
    fx.fake.answer = JSON.stringify({ city: 7 });
    try {
      const err = await expectApiError(askModel(openai, MODEL, "where?"), 400, null, "guardrail_blocked");
      expect(err.message).toContain("/city");
      fx.fake.answer = "not json";
      expect((await expectApiError(askModel(openai, MODEL, "where?"), 400, null, "guardrail_blocked")).message).toContain("invalid_json");
      fx.fake.answer = JSON.stringify({ city: "Lyon" });
      expect((await askModel(openai, MODEL, "where?")).data.choices[0]!.message.content).toBe('{"city":"Lyon"}');
    } finally {
      fx.fake.answer = undefined;
    }
  });

  it("Presidio's analyzer and anonymizer, and an OpenAI-style moderation endpoint, as outside services", async () => {
    fx.service.reply = (body, path) => {
      const text = String(body.text ?? "");
      if (path === "/analyze") return text.includes("Bob") ? [{ entity_type: "PERSON", start: text.indexOf("Bob"), end: text.indexOf("Bob") + 3, score: 0.85 }] : [];
      if (path === "/anonymize") return { text: text.replace("Bob", "<PERSON>"), items: [] };
      const inputs = body.input as string[];
      return { id: "modr-x", model: "m", results: inputs.map((t) => ({ flagged: t.includes("bad"), categories: { violence: t.includes("bad") }, category_scores: { violence: t.includes("bad") ? 0.9 : 0.01 } })) };
    };
    const analyzer = await guardedWorkspace({ name: "presidio", type: "http", stage: "input", action: "redact", adapter: "presidio", url: fx.service.url });
    await askModel(analyzer.openai, MODEL, "ask Bob");
    expect(lastSent().messages[0]!.content).toBe("ask [PERSON]");
    const anonymized = await guardedWorkspace({ name: "presidio-a", type: "http", stage: "input", action: "redact", adapter: "presidio", url: fx.service.url, anonymizer_url: fx.service.url });
    await askModel(anonymized.openai, MODEL, "ask Bob");
    expect(lastSent().messages[0]!.content).toBe("ask <PERSON>");
    const moderated = await guardedWorkspace({ name: "mod-svc", type: "http", stage: "input", action: "block", adapter: "openai-moderation", url: `${fx.service.url}/moderations` });
    expect((await expectApiError(askModel(moderated.openai, MODEL, "something bad"), 400, null, "guardrail_blocked")).message).toContain("violence");
    expect((await askModel(moderated.openai, MODEL, "something good")).data.choices[0]!.message.content).toBe("fake answer");
  });

  it("the CLI adds, attaches, lists and tests", async () => {
    const { workspace } = await newWorkspace("1");
    const add = await cli("guardrail", "add", workspace.id, "--name", "cli-deny", "--type", "deny", "--stage", "input", "--action", "redact", "--pattern", "secret\\s+\\w+", "--word", "codename", "--json");
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ object: "guardrail", name: "cli-deny", type: "deny", patterns: ["secret\\s+\\w+"], words: ["codename"], attached_to: [] });
    expect((await cli("guardrail", "attach", workspace.id, "cli-deny", "--json")).code).toBe(0);
    const list = JSON.parse((await cli("guardrail", "list", workspace.id, "--json")).stdout) as { data: { name: string; attached_to: string[] }[] };
    expect(list.data).toEqual([expect.objectContaining({ name: "cli-deny", attached_to: ["workspace"] })]);
    const test = await cli("guardrail", "test", workspace.id, "cli-deny", "--text", "the secret sauce and the codename", "--json");
    expect(JSON.parse(test.stdout)).toMatchObject({ verdict: "redacted", text: "the [DENIED] and the [DENIED]" });
    const bad = await cli("guardrail", "add", workspace.id, "--name", "x", "--type", "deny", "--stage", "input", "--action", "block", "--pattern", "(a)\\1", "--json");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("patterns[0]");
  });

  describe("two instances", () => {
    let a: GatewayInstance;
    let b: GatewayInstance;
    beforeAll(async () => {
      [a, b] = await Promise.all([startGatewayInstance(), startGatewayInstance()]);
    }, 120_000);
    afterAll(async () => Promise.all([a?.stop(), b?.stop()]));

    it("a guardrail attached while both instances hold the workspace's rules applies on both within a second", async () => {
      const { workspace, secret } = await newWorkspace("5");
      const on = (url: string) => new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 });
      for (const i of [a, b]) expect((await askModel(on(i.url), MODEL, "a forbidden word")).data.choices[0]!.message.content).toBe("fake answer");
      await addGuardrail(workspace.id, { name: "late", type: "deny", stage: "input", action: "block", words: ["forbidden"] });
      const started = Date.now();
      await attachGuardrail(workspace.id, "late", {});
      for (const i of [a, b]) {
        const { value } = await until(() => askModel(on(i.url), MODEL, "a forbidden word").then(() => 200, (e: { status: number }) => e.status), (s) => s === 400, 1000);
        expect(value).toBe(400);
      }
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });
});
