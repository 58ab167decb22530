// Token windows in one instance, against the real database: tokens a call gave back are this
// instance's to admit again at once, whether they wait to be returned to the shared row or are
// on their way there.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RateWindows } from "../../server/admission/limits/rate-windows";
import { db } from "../../server/infra/db/client";

const NOW = Date.now();
const START = NOW - (NOW % 60_000);

/** A window of 320 tokens (a slice of 20) that this instance took whole: the database has none left. */
async function usedUp(): Promise<{ windows: RateWindows; scope: string }> {
  const windows = new RateWindows();
  const scope = `tpm:${randomUUID()}`;
  expect((await windows.take(scope, 320, 300, NOW)).ok).toBe(true);
  expect((await windows.take(scope, 320, 20, NOW)).ok).toBe(true);
  return { windows, scope };
}

describe("rate windows", () => {
  it("tokens given back and still waiting to go to the shared row are admitted again", async () => {
    const { windows, scope } = await usedUp();
    // 30 back: 20 stay in the slice, 10 wait for the timer to go to the shared row.
    windows.giveBack(scope, START, 30);
    const b = await windows.take(scope, 320, 30, NOW);
    expect(b).toMatchObject({ ok: true, remaining: 0 });
    expect((await windows.take(scope, 320, 1, NOW)).ok).toBe(false);
  });

  it("tokens on their way to the shared row are admitted again once they are there", async () => {
    const { windows, scope } = await usedUp();
    // 200 back: 20 stay, 180 go to the shared row at once (more than a slice's worth).
    windows.giveBack(scope, START, 200);
    expect(windows.peek(scope, 320, NOW).remaining).toBe(200);
    const c = await windows.take(scope, 320, 150, NOW);
    expect(c).toMatchObject({ ok: true, remaining: 50 });
    expect((await windows.take(scope, 320, 50, NOW)).ok).toBe(true);
    expect((await windows.take(scope, 320, 1, NOW)).ok).toBe(false);
  });

  it("an instance's first ask sweeps the windows long past from the shared table, and leaves the current ones", async () => {
    const old = `tpm:${randomUUID()}`;
    await db.rateWindow.create({ data: { scope: old, windowStart: BigInt(START - 3_600_000), taken: 5, expiresAt: new Date(NOW - 3_000_000) } });
    const { scope } = await usedUp(); // a new instance: its first ask sweeps, behind the answer
    const deadline = Date.now() + 5_000;
    while ((await db.rateWindow.count({ where: { scope: old } })) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await db.rateWindow.count({ where: { scope: old } })).toBe(0);
    expect(await db.rateWindow.count({ where: { scope } })).toBe(1);
  });
});
