// Admission from memory with a bound (server/ledger/credit-leases.ts): instances reserve each
// call's highest cost from credit leases that together never exceed the balance, so the balance
// never goes below zero however many calls race on however many instances.
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { addCredits } from "../../server/ledger/add-credits";
import { LeaseBook, type Hold } from "../../server/ledger/credit-leases";
import { recordCall, reserve } from "../../server/ledger/meter";
import { usageMovement } from "../../server/ledger/movements";
import { UsageWriter } from "../../server/ledger/usage-writer";
import { withVideoReservation } from "../../server/ledger/video-money";
import { errors } from "../../server/kernel/errors";
import { randomBase62 } from "../../server/kernel/ids";
import { formatMoney, money, Money } from "../../server/kernel/money";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { balanceOf, expectLedgerInvariant } from "./ledger-fixtures";

const books: LeaseBook[] = [];

/** A simulated gateway instance: its own lease book and usage writer. */
function instance(name: string, options: ConstructorParameters<typeof LeaseBook>[1] = {}) {
  const book = new LeaseBook(`${name}-${randomBase62(6)}`, { maintainEveryMs: 0, ...options });
  books.push(book);
  const writer = new UsageWriter({ book: () => book });
  const charge = (hold: Hold, cost: string, keyId: string | null = null) =>
    writer.record(
      usageMovement({ workspaceId: hold.workspaceId, apiKeyId: keyId }, cost, { eventId: `req_${randomBase62(16)}`, modelId: "lease-test", nodeId: null, endpoint: "/v1/chat/completions" }, hold.instanceId),
      hold,
    );
  return { book, charge };
}

afterEach(() => {
  for (const b of books.splice(0)) b.stop();
});

const refused = (err: unknown) => (err as { status?: number; code?: string }).code === "insufficient_quota";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sum of the unexpired leases and the balance, read in one snapshot. */
async function leasesAndBalance(workspaceId: string): Promise<{ leased: Money; balance: Money }> {
  const [row] = await db.$queryRaw<{ leased: string; balance: string }[]>`
    SELECT (SELECT COALESCE(SUM(GREATEST("amount", 0)), 0) FROM "CreditLease" WHERE "workspaceId" = w."id" AND "expiresAt" > now())::text AS leased,
      w."balance"::text AS balance
    FROM "Workspace" w WHERE w."id" = ${workspaceId}`;
  return { leased: money(row!.leased), balance: money(row!.balance) };
}

describe("credit leases", () => {
  it("200 concurrent calls from two instances on a workspace holding a few cents: never overdrawn, leases never above the balance", async () => {
    const credits = "0.03";
    const max = money("0.0025"); // a chat call's reservation (4,096 output tokens at $0.60 per 1M, and its input)
    const { workspace } = await createWorkspace({ name: "lease race", credits });
    const [a, b] = [instance("a"), instance("b")];
    let sampling = true;
    const samples: { leased: Money; balance: Money }[] = [];
    const sampler = (async () => {
      while (sampling) {
        samples.push(await leasesAndBalance(workspace.id));
        await sleep(2);
      }
    })();
    const charged: string[] = [];
    const outcome = { a: 0, b: 0, refused: 0 };
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const [name, inst] = i % 2 ? (["b", b] as const) : (["a", a] as const);
        let hold: Hold;
        try {
          hold = await inst.book.hold(workspace.id, max);
        } catch (err) {
          if (!refused(err)) throw err;
          outcome.refused++;
          return;
        }
        outcome[name]++;
        await sleep(Math.random() * 30);
        // What the node reported: anything up to the reservation, with 18 places.
        const cost = formatMoney(max.times(Math.random()).toDecimalPlaces(18));
        await inst.charge(hold, cost);
        charged.push(cost);
      }),
    );
    sampling = false;
    await sampler;
    console.log(`lease race: ${outcome.a} admitted on A, ${outcome.b} on B, ${outcome.refused} refused; ${samples.length} samples`);
    expect(outcome.a).toBeGreaterThan(0);
    expect(outcome.b).toBeGreaterThan(0);
    expect(outcome.refused).toBeGreaterThan(0);
    for (const s of samples) {
      expect(s.balance.gte(0), `balance ${formatMoney(s.balance)}`).toBe(true);
      expect(s.leased.lte(s.balance), `leases ${formatMoney(s.leased)} above the balance ${formatMoney(s.balance)}`).toBe(true);
    }
    const total = charged.reduce((sum, c) => sum.plus(c), money(0));
    expect(await balanceOf(workspace.id)).toBe(formatMoney(money(credits).minus(total)));
    await expectLedgerInvariant(workspace.id);
    for (const inst of [a, b]) expect(inst.book.snapshot(workspace.id)?.held ?? "0").toBe("0");
  }, 60_000);

  it("a call that cannot be covered is refused with 402 insufficient_quota, from memory once refused", async () => {
    const { workspace } = await createWorkspace({ name: "lease refusal", credits: "0.01" });
    const { book } = instance("solo", { starvedMs: 60_000 });
    const err = await book.hold(workspace.id, "0.02").catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 402, code: "insufficient_quota", message: errors.insufficientQuota().message });
    // The next refusals need no database.
    const asks = book.stats.asks;
    for (let i = 0; i < 20; i++) await expect(book.hold(workspace.id, "0.02")).rejects.toMatchObject({ status: 402 });
    expect(book.stats.asks).toBe(asks);
    // A smaller call that what is free covers is still admitted, and those after it from memory.
    for (let i = 0; i < 5; i++) (await book.hold(workspace.id, "0.001")).end();
    expect(book.stats.asks).toBe(asks + 1);
  });

  it("a workspace at zero is refused even for a free call", async () => {
    const { workspace } = await createWorkspace({ name: "lease zero" });
    const { book } = instance("zero");
    await expect(book.hold(workspace.id, "0")).rejects.toMatchObject({ status: 402 });
  });

  it("the charge lowers the balance and the lease in one statement; the reservation is given back", async () => {
    const { workspace } = await createWorkspace({ name: "lease charge", credits: "1" });
    const { book, charge } = instance("charge");
    const hold = await book.hold(workspace.id, "0.01");
    const granted = money(book.snapshot(workspace.id)!.granted);
    expect(granted.gte("0.01")).toBe(true);
    expect(book.snapshot(workspace.id)!.held).toBe("0.01");
    await charge(hold, "0.004");
    expect(book.snapshot(workspace.id)).toMatchObject({ held: "0", holds: 0, granted: formatMoney(granted.minus("0.004")) });
    const row = await db.creditLease.findUniqueOrThrow({ where: { workspaceId_instanceId: { workspaceId: workspace.id, instanceId: book.instanceId } } });
    expect(formatMoney(row.amount)).toBe(formatMoney(granted.minus("0.004")));
    expect(await balanceOf(workspace.id)).toBe("0.996");
  });

  it("a lease nobody renews expires: then another instance may have its money", async () => {
    const { workspace } = await createWorkspace({ name: "lease expiry", credits: "1" });
    const a = instance("expiring", { ttlMs: 800 });
    const b = instance("other", { starvedMs: 0 });
    (await a.book.hold(workspace.id, "0.4")).end(); // A's lease: 0.4 + half of the other 0.6 = 0.7
    expect(a.book.snapshot(workspace.id)!.granted).toBe("0.7");
    await expect(b.book.hold(workspace.id, "0.5")).rejects.toMatchObject({ status: 402 });
    await sleep(900);
    const hold = await b.book.hold(workspace.id, "0.5");
    hold.end();
    // A's lease counted for nothing any more: its own next call asks the database again.
    expect((await leasesAndBalance(workspace.id)).leased.lte(1)).toBe(true);
  });

  it("a lease in use is renewed before it expires", async () => {
    const { workspace } = await createWorkspace({ name: "lease renewal", credits: "1" });
    const a = instance("renewing", { ttlMs: 900 });
    const b = instance("waiting", { starvedMs: 0 });
    const held = await a.book.hold(workspace.id, "0.6");
    for (let i = 0; i < 4; i++) {
      await sleep(300);
      await a.book.maintain();
    }
    // 1.2 s later A's call still holds its 0.6: B cannot take it.
    await expect(b.book.hold(workspace.id, "0.5")).rejects.toMatchObject({ status: 402 });
    await a.charge(held, "0.6");
    expect(await balanceOf(workspace.id)).toBe("0.4");
    expect((await leasesAndBalance(workspace.id)).balance.gte(0)).toBe(true);
  });

  it("an idle lease is given back, and an instance refused for it hears so at once (NOTIFY)", async () => {
    const { workspace } = await createWorkspace({ name: "lease give-back", credits: "1" });
    const a = instance("idle", { idleMs: 50 });
    const b = instance("starved", { starvedMs: 60_000 });
    (await a.book.hold(workspace.id, "0.5")).end();
    await expect(b.book.hold(workspace.id, "0.5")).rejects.toMatchObject({ status: 402 });
    await sleep(60);
    await a.book.maintain();
    expect(a.book.snapshot(workspace.id)).toBeNull();
    const started = Date.now();
    let hold: Hold | undefined;
    while (!hold && Date.now() - started < 1000) {
      hold = await b.book.hold(workspace.id, "0.5").catch(() => undefined);
      if (!hold) await sleep(20);
    }
    expect(hold, "B admitted within 1 s of the give-back").toBeDefined();
    hold!.end();
  });

  it("credits added elsewhere reach an instance that refused the workspace within 1 s", async () => {
    const { workspace } = await createWorkspace({ name: "lease credits" });
    const { book } = instance("broke", { starvedMs: 60_000 });
    await expect(book.hold(workspace.id, "0.001")).rejects.toMatchObject({ status: 402 });
    const added = Date.now();
    await addCredits({ workspaceId: workspace.id, amount: "1" });
    let hold: Hold | undefined;
    while (!hold && Date.now() - added < 1000) {
      hold = await book.hold(workspace.id, "0.001").catch(() => undefined);
      if (!hold) await sleep(20);
    }
    expect(hold, "admitted within 1 s of the credit").toBeDefined();
    hold!.end();
  });

  it("a video reservation takes only what no lease holds; this instance's idle lease is pinned to what its calls hold", async () => {
    const { workspace } = await createWorkspace({ name: "lease video", credits: "1" });
    const other = instance("other-instance");
    (await other.book.hold(workspace.id, "0.3")).end(); // its lease: 0.3 + 0.35 = 0.65
    const job = (n: number) => ({ id: `video-${randomBase62(12)}-${n}`, workspaceId: workspace.id, apiKeyId: null });
    const refusal = () => errors.insufficientQuota("video refused");
    await expect(withVideoReservation(job(1), "0.4", refusal, async () => "created")).rejects.toMatchObject({ status: 402, message: "video refused" });
    expect(await withVideoReservation(job(2), "0.3", refusal, async () => "created")).toBe("created");
    expect(await balanceOf(workspace.id)).toBe("0.7");
    // This process's own calls: their lease shrinks to what they hold while the video reserves.
    const mine = await reserve({ principal: { workspaceId: workspace.id, keyId: null }, requestId: `req_${randomBase62(12)}`, outcome: {} }, { endpoint: "/v1/chat/completions", maxCost: money("0.01") });
    // Free: 0.7 - 0.65 (the other instance) - 0.01 (held here) = 0.04.
    await expect(withVideoReservation(job(3), "0.041", refusal, async () => "created")).rejects.toMatchObject({ status: 402 });
    await expect(withVideoReservation(job(4), "0.04", refusal, async () => "created")).resolves.toBe("created");
    await recordCall(mine, { modelId: "lease-test", nodeId: "n", started: performance.now() }, { cost: money("0.01") });
    expect(await balanceOf(workspace.id)).toBe("0.65");
    const { leased, balance } = await leasesAndBalance(workspace.id);
    expect(leased.lte(balance)).toBe(true);
    await expectLedgerInvariant(workspace.id);
  });

  it("a charge is capped at its reservation: a node reporting more than the request allowed is billed the reservation", async () => {
    const { workspace } = await createWorkspace({ name: "lease cap", credits: "1" });
    const ctx = { principal: { workspaceId: workspace.id, keyId: null }, requestId: `req_${randomBase62(12)}`, outcome: {} };
    const m = await reserve(ctx, { endpoint: "/v1/chat/completions", maxCost: money("0.0000123") });
    await recordCall(m, { modelId: "lease-test", nodeId: "n", started: performance.now() }, { inputTokens: 10, outputTokens: 99_999, cost: money("0.06") });
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: ctx.requestId } });
    expect({ cost: formatMoney(event.cost), outputTokens: event.outputTokens }).toEqual({ cost: "0.0000123", outputTokens: 99_999 });
    expect(await balanceOf(workspace.id)).toBe("0.9999877");
    expect(m.hold.isOpen).toBe(false);
  });
});
