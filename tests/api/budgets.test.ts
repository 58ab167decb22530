// Spend caps of plans (server/ledger/budgets.ts, docs/LIMITS.md): per subject and per key on a
// plan, per UTC day and month; per session over its life (spend_cap). A call is admitted only if
// what was spent, plus what calls in flight hold, plus the most this call can cost (its
// reservation: the bound from the input bytes plus max_tokens, at the model's prices) stays within
// every cap; otherwise 402 budget_exceeded (type insufficient_quota), which is not the workspace's
// empty balance. The counters (SpendCounter) are raised by the ledger statement that charges the
// usage, so they equal the sum of the usage charged to them.
//
// The test run's gateway runs one process per core, each with its own memory (its own view of
// the counters): in the sense of the bounds it is several instances, and consecutive calls to it
// land on either process. The tests of exactly where a cap stops calls use a gateway instance of
// one process (startGatewayInstance); the test across two instances uses two of them.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import type { Prisma } from "../../server/generated/prisma/client";
import { formatMoney, money, Money } from "../../server/kernel/money";
import { dayPeriod, monthPeriod } from "../../server/kernel/spend-counters";
import { client, newWorkspace } from "../helpers";
import { startGatewayInstance, type GatewayInstance, type TokenPrices } from "../instances";
import { CHAT, chat, chatBody, EMBED, errorOf, mintToken, newKey, plan, reservationOf, sum, type CallResult } from "../plans-fixtures";

/** Two gateway instances on the run's database, of one process each. */
let a: GatewayInstance;
let b: GatewayInstance;

beforeAll(async () => {
  [a, b] = await Promise.all([startGatewayInstance(), startGatewayInstance()]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

/** The SDK against one instance. */
const sdkAt = (base: string, apiKey: string) => new OpenAI({ apiKey, baseURL: `${base}/v1`, maxRetries: 0 });

/**
 * The call every test repeats (the built-in node answers equal requests equally, so each costs the
 * same), its reservation and its cost. The prices are read from GET /v1/models/{id}; the cost from
 * a probe call with the workspace's own key (on no plan: it counts against no cap).
 */
async function calibrate(secret: string, base: string) {
  const { pricing } = (await client(secret).models.retrieve(CHAT)) as unknown as { pricing: TokenPrices };
  // max_tokens 30 is less than the simulated reply, so every call uses all of it.
  const body = chatBody("hello there", 30);
  const { amount: reserve } = await reservationOf(body);
  // The reservation, as docs/BILLING.md states it: the input bound (the request's bytes, plus 16
  // for the template and 8 per message) at the dearer input price, max_tokens at the dearer output price.
  const inputBound = Buffer.byteLength(JSON.stringify(body)) + 16 + 8;
  const input = money(pricing.input_per_1m).gt(pricing.cache_read_per_1m) ? pricing.input_per_1m : pricing.cache_read_per_1m;
  const output = money(pricing.output_per_1m).gt(pricing.reasoning_per_1m) ? pricing.output_per_1m : pricing.reasoning_per_1m;
  expect(formatMoney(reserve)).toBe(formatMoney(money(input).times(inputBound).plus(money(output).times(30)).dividedBy(1_000_000)));
  const probe = await chat(secret, body, base);
  expect(probe.status, JSON.stringify(probe.body)).toBe(200);
  expect(probe.body.usage.completion_tokens).toBe(30);
  const event = await db.usageEvent.findUniqueOrThrow({ where: { id: probe.requestId! } });
  const cost = money(event.cost);
  // A cap of `reserve + k * cost` lets exactly k + 1 such calls through (the next one's reservation no longer fits).
  expect(cost.lt(reserve)).toBe(true);
  const capFor = (k: number) => formatMoney(reserve.plus(cost.times(k)));
  return { pricing, body, reserve, cost, capFor };
}

/** Calls until the first refusal (at most `max` calls); the answers, the first refusal last. */
async function callUntilRefused(token: string, body: Record<string, unknown>, base: string, max = 20): Promise<{ ok: CallResult[]; refused: CallResult | null }> {
  const ok: CallResult[] = [];
  for (let i = 0; i < max; i++) {
    const r = await chat(token, body, base);
    if (r.status !== 200) return { ok, refused: r };
    ok.push(r);
  }
  return { ok, refused: null };
}

/** The usage events that match, with what the tests look at. */
const costsOf = (where: Prisma.UsageEventWhereInput) =>
  db.usageEvent.findMany({ where, select: { id: true, cost: true, planId: true, subject: true, apiKeyId: true } });

async function counter(workspaceId: string, name: string): Promise<string | null> {
  const row = await db.spendCounter.findUnique({ where: { workspaceId_counter: { workspaceId, counter: name } } });
  return row ? formatMoney(row.spent) : null;
}

const today = () => dayPeriod(new Date());
const thisMonth = () => monthPeriod(new Date());

function expectBudgetExceeded(r: CallResult, cap: "daily spend cap" | "monthly spend cap" | "spend cap of this session") {
  expect(r.status).toBe(402);
  expect(errorOf(r)).toEqual({ message: expect.stringContaining(`of the ${cap}`), type: "insufficient_quota", param: null, code: "budget_exceeded" });
}

describe("a plan's daily cap per subject", () => {
  it("a session's calls pass until the next would pass the cap, then 402 budget_exceeded; the counters equal the usage exactly", async () => {
    const { workspace, secret } = await newWorkspace("5");
    const { body, reserve, cost, capFor } = await calibrate(secret, a.url);
    const dailyCap = capFor(5);
    const p = await plan(workspace.id, { name: "daily", daily_cap: dailyCap, monthly_cap: capFor(50) });
    const { token } = await mintToken(secret, { plan: p.id, subject: "dora" });

    const { ok, refused } = await callUntilRefused(token, body, a.url);
    console.log(`daily cap ${dailyCap}: reservation ${formatMoney(reserve)}, cost ${formatMoney(cost)} a call; ${ok.length} passed`);
    // Each call passed while what was spent plus its reservation fitted: 5 costs + one reservation, so 6 calls.
    expect(ok).toHaveLength(6);
    expect(refused).not.toBeNull();
    expectBudgetExceeded(refused!, "daily spend cap");
    const message = errorOf(refused!).message;
    expect(message).toContain(`up to ${formatMoney(reserve.toSignificantDigits(6, Money.ROUND_UP))} USD`);
    expect(message).toContain(`(${formatMoney(money(dailyCap).minus(cost.times(6)))} of ${dailyCap} USD)`);
    expect(message).toMatch(/starts afresh in \d+ s/);
    // The same request will not pass before the cap starts afresh: the SDKs are told not to retry.
    expect(refused!.headers.get("x-should-retry")).toBe("false");

    // The SDK sees the same refusal as an APIError with status 402; the session stays refused.
    const err = await sdkAt(a.url, token).chat.completions.create(body as never).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 402, code: "budget_exceeded", type: "insufficient_quota" });

    // The workspace is far from empty: its own key still calls (this is not insufficient_quota).
    const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(money(ws.balance).gt(4.99)).toBe(true);
    expect((await chat(secret, body, a.url)).status).toBe(200);

    // The usage events carry the plan and the subject; exactly the admitted calls were billed.
    const events = await costsOf({ workspaceId: workspace.id, subject: "dora" });
    expect(events.map((e) => e.id).sort()).toEqual(ok.map((r) => r.requestId).sort());
    for (const e of events) expect(e).toMatchObject({ planId: p.id, subject: "dora", apiKeyId: null });
    const spent = sum(events.map((e) => e.cost));
    expect(spent.lte(dailyCap)).toBe(true);
    expect(spent.plus(reserve).gt(dailyCap)).toBe(true);
    // The subject's counters (day and month) equal the sum of its usage, to the last decimal.
    expect(await counter(workspace.id, `subject:dora|${today()}`)).toBe(formatMoney(spent));
    expect(await counter(workspace.id, `subject:dora|${thisMonth()}`)).toBe(formatMoney(spent));
    // Only the subject's counters exist (the workspace's own key is on no plan).
    expect((await db.spendCounter.findMany({ where: { workspaceId: workspace.id } })).map((c) => c.counter).sort()).toEqual(
      [`subject:dora|${thisMonth()}`, `subject:dora|${today()}`].sort(),
    );
  }, 90_000);

  it("a session's spend_cap below the plan's caps stops that session only; another session of the subject goes on to the plan's cap", async () => {
    const { workspace, secret } = await newWorkspace("5");
    const { body, cost, capFor } = await calibrate(secret, a.url);
    const dailyCap = capFor(7); // 8 calls a day for the subject
    const p = await plan(workspace.id, { name: "daily with sessions", daily_cap: dailyCap });
    const capped = await mintToken(secret, { plan: p.id, subject: "sam", spend_cap: capFor(2) }); // 3 calls for this session
    expect(capped.spend_cap).toBe(capFor(2));
    const free = await mintToken(secret, { plan: p.id, subject: "sam" });
    expect(free.spend_cap).toBeNull();

    const first = await callUntilRefused(capped.token, body, a.url);
    expect(first.ok).toHaveLength(3);
    expectBudgetExceeded(first.refused!, "spend cap of this session");

    // Another session of the same subject is not held by that session's cap, only by the plan's.
    const second = await callUntilRefused(free.token, body, a.url);
    expect(second.ok).toHaveLength(8 - 3);
    expectBudgetExceeded(second.refused!, "daily spend cap");
    // A session of another subject under the plan has its own daily cap.
    const other = await mintToken(secret, { plan: p.id, subject: "other" });
    expect((await chat(other.token, body, a.url)).status).toBe(200);
    // The capped session is still refused.
    expect((await chat(capped.token, body, a.url)).status).toBe(402);

    const events = await costsOf({ workspaceId: workspace.id, subject: "sam" });
    expect(events).toHaveLength(8);
    const ofCapped = events.filter((e) => first.ok.some((r) => r.requestId === e.id));
    expect(ofCapped).toHaveLength(3);
    expect(await counter(workspace.id, `session:${capped.id}|total`)).toBe(formatMoney(sum(ofCapped.map((e) => e.cost))));
    expect(await counter(workspace.id, `session:${capped.id}|total`)).toBe(formatMoney(cost.times(3)));
    expect(await counter(workspace.id, `session:${free.id}|total`)).toBeNull(); // no spend_cap, no counter
    expect(await counter(workspace.id, `subject:sam|${today()}`)).toBe(formatMoney(sum(events.map((e) => e.cost))));
    expect(money(dailyCap).gte(sum(events.map((e) => e.cost)))).toBe(true);
  }, 90_000);
});

describe("a plan's monthly cap per key", () => {
  it("a key on a plan with a monthly cap is refused 402 budget_exceeded once it is reached; other keys go on", async () => {
    const { workspace, secret } = await newWorkspace("5");
    const { body, capFor } = await calibrate(secret, a.url);
    const monthlyCap = capFor(3); // 4 calls a month per key
    const p = await plan(workspace.id, { name: "monthly keys", monthly_cap: monthlyCap });
    const k1 = await newKey(workspace.id, p.id, "first");
    const k2 = await newKey(workspace.id, p.id, "second");

    const first = await callUntilRefused(k1.secret, body, a.url);
    expect(first.ok).toHaveLength(4);
    expectBudgetExceeded(first.refused!, "monthly spend cap");
    expect(errorOf(first.refused!).message).toMatch(/starts afresh in \d+ s/);
    // The SDK with the same key: 402.
    const err = await sdkAt(a.url, k1.secret).chat.completions.create(body as never).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 402, code: "budget_exceeded" });

    // Another key on the plan has a cap of its own; the workspace's key on no plan has none.
    expect((await chat(k2.secret, body, a.url)).status).toBe(200);
    expect((await chat(secret, body, a.url)).status).toBe(200);

    const ofK1 = await costsOf({ apiKeyId: k1.id });
    expect(ofK1.map((e) => e.id).sort()).toEqual(first.ok.map((r) => r.requestId).sort());
    for (const e of ofK1) expect(e).toMatchObject({ planId: p.id, subject: null });
    expect(await counter(workspace.id, `key:${k1.id}|${thisMonth()}`)).toBe(formatMoney(sum(ofK1.map((e) => e.cost))));
    expect(await counter(workspace.id, `key:${k2.id}|${thisMonth()}`)).toBe(formatMoney(sum((await costsOf({ apiKeyId: k2.id })).map((e) => e.cost))));
    expect(money(monthlyCap).gte(sum(ofK1.map((e) => e.cost)))).toBe(true);
    // No daily cap on the plan: no daily counters.
    expect(await db.spendCounter.count({ where: { workspaceId: workspace.id, counter: { contains: "|day:" } } })).toBe(0);
  }, 90_000);
});

describe("models of a plan", () => {
  it("a model not in the plan is 403 model_not_allowed and charges nothing", async () => {
    const { workspace, secret } = await newWorkspace("2");
    const p = await plan(workspace.id, { name: "embeddings only", models: [EMBED], daily_cap: "1", monthly_cap: "5" });
    const { token } = await mintToken(secret, { plan: p.id, subject: "eve" });
    const key = await newKey(workspace.id, p.id, "embeddings key");

    for (const credential of [token, key.secret]) {
      const err = await client(credential).chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hi" }], max_tokens: 5 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(err).toMatchObject({ status: 403, code: "model_not_allowed", param: "model" });
      expect((err as Error).message).toContain(CHAT);
      expect((err as Error).message).toContain("embeddings only");
      // The raw answer: the OpenAI error shape.
      const raw = await chat(credential, chatBody("hi", 5));
      expect(raw.status).toBe(403);
      expect(errorOf(raw)).toEqual({ message: expect.any(String), type: "permission_error", param: "model", code: "model_not_allowed" });
    }
    // Nothing was charged, no counter was raised.
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect(await db.spendCounter.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect(formatMoney((await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } })).balance)).toBe(formatMoney(2));

    // The plan's model works, and is counted.
    const emb = await client(token).embeddings.create({ model: EMBED, input: "allowed" });
    expect(emb.data).toHaveLength(1);
    const events = await costsOf({ workspaceId: workspace.id });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ planId: p.id, subject: "eve" });
    expect(await counter(workspace.id, `subject:eve|${today()}`)).toBe(formatMoney(events[0]!.cost));
  }, 60_000);
});

describe("across two instances", () => {
  it("a subject alternating between two instances passes its daily cap by at most one call's reservation when calls are sequential", async () => {
    const { workspace, secret } = await newWorkspace("5");
    const { body, reserve, cost, capFor } = await calibrate(secret, a.url);
    const dailyCap = capFor(6);
    const p = await plan(workspace.id, { name: "daily, two instances", daily_cap: dailyCap });
    const { token } = await mintToken(secret, { plan: p.id, subject: "roamer" });

    // Sequential calls, alternating, until both instances refuse in a row.
    const outcomes: (CallResult & { instance: string; spentBefore: Money })[] = [];
    let spent = money(0);
    let refusedInARow = 0;
    for (let i = 0; i < 40 && refusedInARow < 2; i++) {
      const instance = i % 2 === 0 ? a.url : b.url;
      const r = await chat(token, body, instance);
      outcomes.push({ ...r, instance, spentBefore: spent });
      if (r.status === 200) {
        refusedInARow = 0;
        spent = spent.plus((await db.usageEvent.findUniqueOrThrow({ where: { id: r.requestId! } })).cost.toString());
      } else {
        expectBudgetExceeded(r, "daily spend cap");
        refusedInARow++;
      }
    }
    const admitted = outcomes.filter((o) => o.status === 200);
    const overshoot = spent.minus(dailyCap);
    console.log(
      `daily cap ${dailyCap} across two instances: ${admitted.length} admitted (a call costs ${formatMoney(cost)}, reserves ${formatMoney(reserve)}); spent ${formatMoney(spent)}, over the cap by ${formatMoney(overshoot)}`,
    );
    expect(refusedInARow).toBe(2);
    // Every refusal was due: what was spent then plus the call's reservation passed the cap.
    for (const o of outcomes.filter((x) => x.status === 402)) expect(o.spentBefore.plus(reserve).gt(dailyCap)).toBe(true);
    // The bound: one call's reservation per other instance.
    expect(overshoot.lte(reserve), `over the cap by ${formatMoney(overshoot)}, more than one reservation (${formatMoney(reserve)})`).toBe(true);
    // The counter is exactly the usage, whichever instance charged it.
    const events = await costsOf({ workspaceId: workspace.id, subject: "roamer" });
    expect(events).toHaveLength(admitted.length);
    expect(formatMoney(sum(events.map((e) => e.cost)))).toBe(formatMoney(spent));
    expect(await counter(workspace.id, `subject:roamer|${today()}`)).toBe(formatMoney(spent));
  }, 120_000);
});
