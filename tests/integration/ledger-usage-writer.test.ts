// The batched usage writer (server/ledger/usage-writer.ts): many calls' usage in one transaction,
// one bad event never costs the others their charge, and every reservation ends either way.
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { LeaseBook, type Hold } from "../../server/ledger/credit-leases";
import { usageMovement } from "../../server/ledger/movements";
import { UsageWriter } from "../../server/ledger/usage-writer";
import { randomBase62 } from "../../server/kernel/ids";
import { formatMoney, money } from "../../server/kernel/money";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { balanceOf, expectLedgerInvariant } from "./ledger-fixtures";

const books: LeaseBook[] = [];
afterEach(() => {
  for (const b of books.splice(0)) b.stop();
});

function setup() {
  const book = new LeaseBook(`writer-${randomBase62(6)}`, { maintainEveryMs: 0 });
  books.push(book);
  const writer = new UsageWriter({ book: () => book });
  const record = (workspaceId: string, cost: string, hold?: Hold, eventId = `req_${randomBase62(16)}`) =>
    writer.record(usageMovement({ workspaceId, apiKeyId: null }, cost, { eventId, modelId: "writer-test", nodeId: null, endpoint: "/v1/embeddings", inputTokens: 3 }, hold?.instanceId), hold);
  return { book, record };
}

describe("usage writer", () => {
  it("commits the usage of many calls in one transaction", async () => {
    const { workspace } = await createWorkspace({ name: "writer batches", credits: "1" });
    const { record } = setup();
    await Promise.all(Array.from({ length: 100 }, () => record(workspace.id, "0.001")));
    // Rows written by one transaction share its id (xmin).
    const [row] = await db.$queryRaw<{ events: number; transactions: number }[]>`
      SELECT COUNT(*)::int AS events, COUNT(DISTINCT xmin::text)::int AS transactions FROM "UsageEvent" WHERE "workspaceId" = ${workspace.id}`;
    expect(row!.events).toBe(100);
    expect(row!.transactions).toBeLessThanOrEqual(3);
    expect(await balanceOf(workspace.id)).toBe("0.9");
    await expectLedgerInvariant(workspace.id);
  });

  it("a bad event fails alone: the others of its batch are committed one by one, and every reservation ends", async () => {
    const { workspace } = await createWorkspace({ name: "writer fallback", credits: "1" });
    const { book, record } = setup();
    const holds = await Promise.all(Array.from({ length: 20 }, () => book.hold(workspace.id, "0.01")));
    const outcomes = await Promise.allSettled([
      ...holds.map((h) => record(workspace.id, "0.002", h)),
      record("ws_does_not_exist", "0.5"), // no such workspace: its insert fails the batch
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(20);
    expect(outcomes.at(-1)!.status).toBe("rejected");
    expect(holds.every((h) => !h.isOpen)).toBe(true);
    expect(book.snapshot(workspace.id)!.held).toBe("0");
    expect(await balanceOf(workspace.id)).toBe(formatMoney(money(1).minus(money("0.002").times(20))));
    await expectLedgerInvariant(workspace.id);
  });

  it("the same event id recorded twice is charged once", async () => {
    const { workspace } = await createWorkspace({ name: "writer idempotent", credits: "1" });
    const { record } = setup();
    const id = `req_${randomBase62(16)}`;
    await Promise.all([record(workspace.id, "0.1", undefined, id), record(workspace.id, "0.1", undefined, id)]);
    await record(workspace.id, "0.1", undefined, id);
    expect(await balanceOf(workspace.id)).toBe("0.9");
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
  });
});
