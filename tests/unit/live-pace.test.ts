// Batches give way to live calls (server/batches/live-pace.ts): lines start at once while no live
// call was answered lately, at most BATCH_LIVE_LINES_PER_SECOND a second (default 50: one every
// 20 ms) while they are, and at full speed again a second after the last one.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { awaitLineStart, noteLiveTraffic } from "../../server/batches/live-pace";

async function starts(n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await awaitLineStart();
  return performance.now() - t0;
}

describe("batch lines beside live calls", () => {
  it("start at once with no live call lately", async () => {
    noteLiveTraffic(Date.now() - 5000);
    expect(await starts(100)).toBeLessThan(50);
  });

  it("start one every 20 ms while live calls are answered, lanes included", async () => {
    noteLiveTraffic();
    // Four lanes asking at once take turns: 8 starts span at least 7 intervals.
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 4 }, () => starts(2)));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(7 * 20 - 5);
  });

  it("run at full speed again a second after the last live call", async () => {
    noteLiveTraffic(Date.now() - 1001);
    expect(await starts(100)).toBeLessThan(50);
  });

  it("paced waits on one signal (a batch's lines share it) leave no listener on it", async () => {
    noteLiveTraffic();
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await awaitLineStart(controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("an aborted wait ends at once", async () => {
    noteLiveTraffic();
    await starts(3); // the next turn is now 20 ms or more away
    const controller = new AbortController();
    const waiting = awaitLineStart(controller.signal);
    const t0 = performance.now();
    controller.abort();
    await waiting;
    expect(performance.now() - t0).toBeLessThan(15);
  });
});
