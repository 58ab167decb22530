// Many instances, one PostgreSQL: what an instance keeps in memory (verified keys, balances, the
// catalog and the routable nodes) follows a change made through another instance within 1 s.
// Instance A is the test run's gateway, B an extra one on the same database. Each change is
// made through A's dashboard (tRPC over HTTP, signed in as a user), after B has cached the old
// state. B is called every 20 ms from the moment the change is requested from A; no call sent
// 1 s or more after A confirmed the change (so after it was committed) may still see the old
// state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { chatModelCard } from "../fakes/chat-model-card";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { baseUrl, until } from "../helpers";
import { newUser } from "../helpers-dashboard";
import { dashboardMutation, signIn, startGatewayInstance, watchPropagation, type GatewayInstance, type Propagation } from "../instances";

const WITHIN_MS = 1000;
/** Served only by the node that a test adds, so only that node can answer it. */
const MODEL = "test-instances-caches-chat";

let b: GatewayInstance;
let fake: FakeUpstream;
const a = () => baseUrl();

/** How long after A confirmed the change B still answered from the old state (ms), and a line saying so. */
function staleAfterConfirmed(what: string, p: Propagation<unknown>, requestMs: number): number {
  console.log(
    `${what}: A confirmed it after ${requestMs} ms; counted from the request, the first call seeing it was sent at ` +
      `${p.firstSeenMs} ms, the last call not seeing it at ${p.lastStaleMs} ms (${p.attempts} calls)`,
  );
  return p.lastStaleMs - requestMs;
}

beforeAll(async () => {
  [b, fake] = await Promise.all([startGatewayInstance(), startFakeUpstream(MODEL)]);
  await db.model.create({ data: cardToRow(chatModelCard(MODEL)) });
  await notify(db, Channel.catalogChanged);
});

afterAll(async () => {
  await db.node.deleteMany({ where: { baseUrl: fake.url } });
  await db.model.deleteMany({ where: { id: MODEL } });
  await notify(db, Channel.nodesChanged);
  await notify(db, Channel.catalogChanged);
  await fake?.close();
  await b?.stop();
});

async function chatStatus(instance: string, secret: string, model = "local-chat-sim"): Promise<number> {
  const res = await fetch(`${instance}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }], max_tokens: 8 }),
  });
  await res.body?.cancel();
  return res.status;
}

async function owner(credits: string) {
  const user = await newUser();
  const { workspace, apiKey } = await createWorkspace({ name: "instances", credits, ownerUserId: user.id, withKey: true });
  return { user, workspace, key: apiKey!.key, secret: apiKey!.secret };
}

describe("caches across two instances on one database", () => {
  it(`a key revoked through instance A is refused by instance B (and A) within ${WITHIN_MS} ms`, async () => {
    const { user, workspace, key, secret } = await owner("10");
    const cookie = await signIn(a(), user.email, user.password);
    const models = (instance: string) =>
      fetch(`${instance}/v1/models`, { headers: { authorization: `Bearer ${secret}` } }).then(async (r) => (await r.body?.cancel(), r.status));
    // Both instances have verified (and cached) the key.
    expect(await models(a())).toBe(200);
    expect(await models(b.url)).toBe(200);

    const since = performance.now();
    const watching = Promise.all([b.url, a()].map((i) => watchPropagation(since, () => models(i), (s) => s === 401)));
    await dashboardMutation(a(), cookie, "keys.revoke", { id: key.id }, workspace.id);
    const requestMs = Math.round(performance.now() - since);
    const [onB, onA] = await watching;
    expect(onB!.seen).toBe(401);
    expect(onA!.seen).toBe(401);
    expect(staleAfterConfirmed("key revoked through A, seen by B", onB!, requestMs)).toBeLessThan(WITHIN_MS);
    expect(staleAfterConfirmed("key revoked through A, seen by A", onA!, requestMs)).toBeLessThan(WITHIN_MS);
    const body = await (await fetch(`${b.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).json();
    expect(body.error).toMatchObject({ code: "invalid_api_key", message: expect.stringContaining("revoked") });
  });

  it(`a node added through instance A is routed to by instance B within ${WITHIN_MS} ms`, async () => {
    const operator = await newUser({ operator: true });
    const cookie = await signIn(a(), operator.email, operator.password);
    const { secret } = await owner("10");
    // B knows the model (from the catalog) but no node that serves it, and has cached that.
    const before = await until(() => chatStatus(b.url, secret, MODEL), (s) => s === 503, 10_000);
    expect(before.value).toBe(503);
    const callsBefore = fake.calls;

    const since = performance.now();
    const watching = watchPropagation(since, () => chatStatus(b.url, secret, MODEL), (s) => s === 200);
    const added = await dashboardMutation<{ node: { id: string; status: string } }>(a(), cookie, "nodes.create", {
      name: `instances-${Math.random().toString(36).slice(2, 8)}`,
      url: fake.url,
      city: "Porto",
      country: "PT",
    });
    const requestMs = Math.round(performance.now() - since);
    expect(added.node.status).toBe("online");
    const onB = await watching;
    expect(onB.seen).toBe(200);
    expect(staleAfterConfirmed("node added through A, routed to by B", onB, requestMs)).toBeLessThan(WITHIN_MS);
    // Only the new node serves the model: the answer came from it.
    expect(fake.calls).toBeGreaterThan(callsBefore);
  });

  it(`credits added through instance A let a workspace at 0 call through instance B within ${WITHIN_MS} ms`, async () => {
    const operator = await newUser({ operator: true });
    const cookie = await signIn(a(), operator.email, operator.password);
    const { workspace, secret } = await owner("0");
    // B has just read the balance (0) and refused.
    expect(await chatStatus(b.url, secret)).toBe(402);

    const since = performance.now();
    const watching = watchPropagation(since, () => chatStatus(b.url, secret), (s) => s === 200);
    await dashboardMutation(a(), cookie, "billing.addCredits", { workspaceId: workspace.id, amount: "1" });
    const requestMs = Math.round(performance.now() - since);
    const onB = await watching;
    expect(onB.seen).toBe(200);
    expect(staleAfterConfirmed("credits added through A, seen by B", onB, requestMs)).toBeLessThan(WITHIN_MS);
  });
});
