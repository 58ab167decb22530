// Alerts (docs/ALERTS.md): webhooks get JSON deliveries signed with their secret (Stripe's scheme,
// checked here by the receiver with verifySignature), retried with backoff through pg-boss until
// a 2xx, at most one per webhook and event id however many processes emit the event; and the
// events are raised where they happen: a call taking the balance under a threshold, a budget
// refusal, a spend share of a cap reached, a node failing its health check and coming back.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { emitAlertNow } from "../../server/alerts/emit";
import { verifySignature } from "../../server/alerts/signature";
import { createWebhook } from "../../server/alerts/webhooks";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { money } from "../../server/kernel/money";
import { newWorkspace, until } from "../helpers";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { startReceiver, type Receiver } from "../fakes/webhook-receiver";
import { chat, chatBody, errorOf, newKey, plan } from "../plans-fixtures";

let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

let paths = 0;
/** A receiver path of the test's own. */
const newPath = () => `/hook-${++paths}-${Date.now()}`;

const deliveriesOf = (webhookId: string) => db.webhookDelivery.findMany({ where: { webhookId }, orderBy: { createdAt: "asc" } });

async function received(path: string, count: number, timeoutMs = 15_000) {
  const { value } = await until(async () => receiver.at(path), (r) => r.length >= count, timeoutMs);
  return value;
}

function emitFromAnotherProcess(workspaceId: string, type: string, eventId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", "tests/fakes/emit-alert.ts", workspaceId, type, eventId], {
      env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (err += d));
    proc.on("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`emit-alert exited ${code}: ${err}`))));
  });
}

describe("deliveries", () => {
  it("are JSON signed with the webhook's secret (t=..,v1=HMAC-SHA256 of '<t>.<body>'), which the receiver verifies", async () => {
    const { workspace } = await newWorkspace();
    const path = newPath();
    const hook = await createWebhook(workspace.id, { url: receiver.url(path), events: ["video.failed"] });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(await emitAlertNow(workspace.id, "video.failed", "evt_signed_1", { video_id: "video-x" })).toBe(1);
    const [got] = await received(path, 1);
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["x-gateway-event-id"]).toBe("evt_signed_1");
    expect(got!.json).toMatchObject({ id: "evt_signed_1", type: "video.failed", workspace_id: workspace.id, data: { video_id: "video-x" } });
    expect(typeof got!.json.created_at).toBe("number");
    const header = got!.headers["x-gateway-signature"] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(got!.body, header, hook.secret, 300)).toMatchObject({ ok: true });
    // A changed body, another secret, or an old timestamp (a replay) do not verify.
    expect(verifySignature(got!.body.replace("video-x", "video-y"), header, hook.secret, 300)).toEqual({ ok: false, reason: "mismatch" });
    expect(verifySignature(got!.body, header, "whsec_other", 300)).toEqual({ ok: false, reason: "mismatch" });
    expect(verifySignature(got!.body, header, hook.secret, 300, Date.now() + 301_000)).toEqual({ ok: false, reason: "too_old" });
    const [row] = await until(() => deliveriesOf(hook.id), (d) => d[0]?.status === "delivered", 5000).then((r) => r.value);
    expect(row).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200, lastError: null });
  });

  it("are retried with backoff until a 2xx: a receiver answering 500 twice gets it on the 3rd attempt, all attempts recorded", async () => {
    const { workspace } = await newWorkspace();
    const path = newPath();
    receiver.answer(path, [500, 500]);
    const hook = await createWebhook(workspace.id, { url: receiver.url(path), events: ["video.failed"] });
    await emitAlertNow(workspace.id, "video.failed", "evt_retried", {});
    const got = await received(path, 3, 25_000);
    expect(got.map((r) => r.json.id)).toEqual(["evt_retried", "evt_retried", "evt_retried"]);
    const { value } = await until(() => deliveriesOf(hook.id), (d) => d[0]?.status === "delivered", 5000);
    expect(value).toHaveLength(1);
    expect(value[0]).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200 });
  }, 40_000);

  it("are made once per webhook and event id, however often and from however many processes the event is emitted", async () => {
    const { workspace } = await newWorkspace();
    const path = newPath();
    const hook = await createWebhook(workspace.id, { url: receiver.url(path), events: ["budget.exceeded"] });
    expect(await emitAlertNow(workspace.id, "budget.exceeded", "evt_once", {})).toBe(1);
    expect(await emitAlertNow(workspace.id, "budget.exceeded", "evt_once", {})).toBe(0);
    // Another process (its own memory, as another instance): the database's unique key stops it.
    expect(await emitFromAnotherProcess(workspace.id, "budget.exceeded", "evt_once")).toBe("0");
    await received(path, 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.at(path)).toHaveLength(1);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
  }, 30_000);

  it("go only to webhooks subscribed to the event type", async () => {
    const { workspace } = await newWorkspace();
    const path = newPath();
    const hook = await createWebhook(workspace.id, { url: receiver.url(path), events: ["node.down"] });
    expect(await emitAlertNow(workspace.id, "video.failed", "evt_not_subscribed", {})).toBe(0);
    expect(await deliveriesOf(hook.id)).toHaveLength(0);
  });
});

describe("webhook URLs go through the outbound guard", () => {
  it.each([
    ["a private address", "http://10.0.0.1/hook"],
    ["a loopback address the operator did not allow", "https://127.0.0.2/hook"],
    ["localhost", "https://localhost/hook"],
    ["the cloud metadata address", "http://169.254.169.254/latest"],
    ["plain http to a public host", "http://example.com/hook"],
  ])("a URL to %s is refused when the webhook is created (400 url_not_allowed)", async (_what, url) => {
    const { workspace } = await newWorkspace();
    await expect(createWebhook(workspace.id, { url, events: ["node.down"] })).rejects.toMatchObject({ status: 400, code: "url_not_allowed", param: "url" });
  });
});

describe("events raised where they happen", () => {
  it("balance.low: once, when a call takes the balance under the webhook's threshold", async () => {
    const { workspace, secret } = await newWorkspace("1");
    const path = newPath();
    const hook = await createWebhook(workspace.id, { url: receiver.url(path), events: ["balance.low"], balance_below: "1" });
    const first = await chat(secret, chatBody("hello", 5));
    expect(first.status).toBe(200);
    const [got] = await received(path, 1);
    expect(got!.json).toMatchObject({ type: "balance.low", workspace_id: workspace.id, data: { threshold: "1", previous_balance: "1" } });
    const balance = (await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } })).balance.toString();
    expect(money(got!.json.data.balance).eq(balance)).toBe(true);
    expect(money(balance).lt(1)).toBe(true);
    // Already under the threshold: the next call crosses nothing.
    expect((await chat(secret, chatBody("hello again", 5))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.at(path)).toHaveLength(1);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
  }, 30_000);

  it("budget.exceeded: on a budget refusal, once per cap and period however often the call is retried", async () => {
    const { workspace } = await newWorkspace();
    const path = newPath();
    await createWebhook(workspace.id, { url: receiver.url(path), events: ["budget.exceeded"] });
    const p = await plan(workspace.id, { name: "tiny", daily_cap: "0.000000001" });
    const key = await newKey(workspace.id, p.id);
    for (let i = 0; i < 2; i++) {
      const refused = await chat(key.secret, chatBody("hello", 5));
      expect(refused.status).toBe(402);
      expect(errorOf(refused).code).toBe("budget_exceeded");
    }
    const [got] = await received(path, 1);
    expect(got!.json).toMatchObject({ type: "budget.exceeded", workspace_id: workspace.id, data: { scope: "key", key_id: key.id, cap_kind: "daily", cap: "0.000000001" } });
    expect(got!.json.data.period).toMatch(/^day:\d{4}-\d{2}-\d{2}$/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.at(path)).toHaveLength(1);
  }, 30_000);

  it("spend.threshold: once, when a key's spend on its plan's daily cap reaches the webhook's share", async () => {
    const { workspace } = await newWorkspace();
    const path = newPath();
    await createWebhook(workspace.id, { url: receiver.url(path), events: ["spend.threshold"], spend_share: 0.000001 });
    const p = await plan(workspace.id, { name: "capped", daily_cap: "1" });
    const key = await newKey(workspace.id, p.id);
    for (let i = 0; i < 2; i++) expect((await chat(key.secret, chatBody(`hello ${i}`, 5))).status).toBe(200);
    const [got] = await received(path, 1);
    expect(got!.json).toMatchObject({ type: "spend.threshold", data: { scope: "key", key_id: key.id, cap: "1", share: 0.000001, plan_id: p.id } });
    expect(money(got!.json.data.spent).gte("0.000001")).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.at(path)).toHaveLength(1);
  }, 30_000);

  describe("node.down and node.up", () => {
    let fake: FakeUpstream;
    let nodeId: string;

    beforeAll(async () => {
      fake = await startFakeUpstream("alerts-fake-model");
      nodeId = newId("node");
      await db.node.create({ data: { id: nodeId, name: `alerts-${nodeId}`, baseUrl: fake.url, city: "Oslo", country: "NO" } });
    });

    afterAll(async () => {
      await db.node.delete({ where: { id: nodeId } }).catch(() => undefined);
      await fake?.close();
    });

    it("go to the webhooks subscribed to them when a node fails its health check and passes it again", async () => {
      const { workspace } = await newWorkspace();
      const path = newPath();
      await createWebhook(workspace.id, { url: receiver.url(path), events: ["node.down", "node.up"] });
      const ours = () => receiver.at(path).filter((r) => r.json.data?.node_id === nodeId);
      // The gateway's own health checks (every 500 ms in tests) find it online first: no news.
      await until(() => db.node.findUniqueOrThrow({ where: { id: nodeId } }), (n) => n.status === "online", 10_000);
      fake.healthy = false;
      await until(async () => ours(), (r) => r.length >= 1, 15_000);
      fake.healthy = true;
      await until(async () => ours(), (r) => r.length >= 2, 15_000);
      const [down, up] = ours();
      expect(down!.json).toMatchObject({ type: "node.down", workspace_id: workspace.id, data: { node_id: nodeId, city: "Oslo", country: "NO", status: "offline" } });
      expect(up!.json).toMatchObject({ type: "node.up", data: { node_id: nodeId, status: "online", previous_status: "offline" } });
      expect(JSON.stringify(down!.json)).not.toContain(fake.url);
    }, 45_000);
  });
});
