// How far a workspace can overdraw when many calls race on two instances (docs/BILLING.md, "402
// and how far a workspace can overdraw"). The bound asked for: a workspace's balance never goes
// below 0 minus what nodes report beyond a request's reserved maximum. A chat call's reserved
// maximum is at least its `max_tokens` of output at the output price, and the built-in node
// never reports more output than `max_tokens`, so here only the input tokens a node reports can
// take the balance below zero, by at most their cost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney, money, Money } from "../../server/kernel/money";
import { baseUrl, client, newWorkspace } from "../helpers";
import { chatCall, chatCost, startGatewayInstance, type ChatOutcome, type GatewayInstance, type TokenPrices } from "../instances";

const MODEL = "local-chat-sim";
const CREDITS = "0.003";
const PER_INSTANCE = 100;
const MAX_TOKENS = 64;

let b: GatewayInstance;

beforeAll(async () => {
  b = await startGatewayInstance();
});

afterAll(async () => {
  await b?.stop();
});

/** Sums decimal strings exactly. */
const sum = (values: { toString(): string }[]): Money => values.reduce<Money>((acc, v) => acc.plus(money(v)), money(0));

describe("overdraft with two instances", () => {
  it(`${2 * PER_INSTANCE} concurrent calls across two instances on a workspace holding $${CREDITS}: the balance stays within the bound and equals credits minus usage`, async () => {
    const { workspace, secret } = await newWorkspace(CREDITS, "overdraft");
    const model = (await client(secret).models.retrieve(MODEL)) as unknown as { pricing: TokenPrices };
    // Both instances are warm (routes loaded, catalog and nodes cached), with a workspace of their own.
    const warm = await newWorkspace("1", "warm-up");
    for (const instance of [baseUrl(), b.url]) {
      const w = await chatCall(instance, warm.secret, { model: MODEL, messages: [{ role: "user", content: "warm up" }], max_tokens: 4 });
      expect(w.status).toBe(200);
    }

    const calls: Promise<ChatOutcome>[] = [];
    for (let i = 0; i < PER_INSTANCE; i++) {
      for (const instance of [baseUrl(), b.url]) {
        // One call in four is streamed: a 402 must come before any stream starts.
        const stream = i % 4 === 3;
        calls.push(
          chatCall(instance, secret, {
            model: MODEL,
            messages: [{ role: "user", content: `call ${i} on ${instance}` }],
            max_tokens: MAX_TOKENS,
            ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
          }),
        );
      }
    }
    const outcomes = await Promise.all(calls);
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status === 402);
    const balanceRow = () => db.workspace.findUniqueOrThrow({ where: { id: workspace.id }, select: { balance: true } });
    console.log(`${ok.length} calls succeeded (${ok.filter((o) => o.instance === b.url).length} on B), ${refused.length} refused; balance now ${formatMoney((await balanceRow()).balance)}`);

    // Every call either succeeded in full or was refused with 402 in the OpenAI error shape.
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 402).map((o) => [o.status, o.error, o.brokenOff])).toEqual([]);
    for (const o of ok) expect(o.complete, JSON.stringify(o)).toBe(true);
    for (const o of refused) {
      expect(o.error).toEqual({ error: { message: expect.any(String), type: "insufficient_quota", param: null, code: "insufficient_quota" } });
      expect(o.requestId).toMatch(/^req_/);
    }
    expect(ok.length).toBeGreaterThanOrEqual(1);

    // Exactly the calls that succeeded were billed, each at the cost of the usage it reported.
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id }, select: { id: true, cost: true } });
    expect(events.map((e) => e.id).sort()).toEqual(ok.map((o) => o.requestId).sort());
    const costById = new Map(events.map((e) => [e.id, formatMoney(e.cost)]));
    for (const o of ok) expect(costById.get(o.requestId!)).toBe(formatMoney(chatCost(model.pricing, o.usage!)));

    // The balance is credits minus usage, exactly.
    const credits = sum((await db.creditLedgerEntry.findMany({ where: { workspaceId: workspace.id }, select: { amount: true } })).map((c) => c.amount));
    const usage = sum(events.map((e) => e.cost));
    const balance = money((await balanceRow()).balance);
    expect(formatMoney(balance)).toBe(formatMoney(credits.minus(usage)));

    // The bound: 0 minus what each call cost beyond its reserved maximum (at least its max_tokens of output).
    const reservedAtLeast = money(model.pricing.output_per_1m).times(MAX_TOKENS).dividedBy(1_000_000);
    const beyondReserved = sum(events.map((e) => Money.max(0, money(e.cost).minus(reservedAtLeast))));
    const bound = money(0).minus(beyondReserved);
    expect(balance.gte(bound), `balance ${formatMoney(balance)} is below the bound ${formatMoney(bound)} (${ok.length} calls billed ${formatMoney(usage)} against ${CREDITS} of credits)`).toBe(true);
  }, 90_000);
});
