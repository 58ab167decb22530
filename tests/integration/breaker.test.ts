// The breaker's rules, in-process (its notices to other processes go through the real database).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { env } from "../../server/infra/env";
import { breakerAllows, healthCheckPassed, isOpen, recordFailure, recordSuccess } from "../../server/routing/nodes/breaker";

const T0 = 1_000_000;

async function fail(nodeId: string, times: number, now = T0) {
  for (let i = 0; i < times; i++) await recordFailure(nodeId, now);
}

describe("circuit breaker", () => {
  it("opens after BREAKER_FAILURES failed calls in a row, even with passed health checks between them", async () => {
    const node = `node-${randomUUID()}`;
    await fail(node, env.BREAKER_FAILURES - 1);
    healthCheckPassed(node, T0 + 1);
    expect(breakerAllows(node, T0 + 2)).toBe(true);
    await fail(node, 1, T0 + 3);
    expect(isOpen(node)).toBe(true);
    expect(breakerAllows(node, T0 + 4)).toBe(false);
  });

  it("a successful call clears the count", async () => {
    const node = `node-${randomUUID()}`;
    await fail(node, env.BREAKER_FAILURES - 1);
    recordSuccess(node);
    await fail(node, 1);
    expect(isOpen(node)).toBe(false);
  });

  it("an open breaker comes back with a health check only once its cooldown is over, or for one trial call", async () => {
    const node = `node-${randomUUID()}`;
    await fail(node, env.BREAKER_FAILURES);
    healthCheckPassed(node, T0 + env.BREAKER_COOLDOWN_MS - 1);
    expect(breakerAllows(node, T0 + env.BREAKER_COOLDOWN_MS - 1)).toBe(false);
    // Past the cooldown: one trial call, not two.
    expect(breakerAllows(node, T0 + env.BREAKER_COOLDOWN_MS)).toBe(true);
    expect(breakerAllows(node, T0 + env.BREAKER_COOLDOWN_MS)).toBe(false);
    healthCheckPassed(node, T0 + env.BREAKER_COOLDOWN_MS);
    expect(isOpen(node)).toBe(false);
    expect(breakerAllows(node, T0 + env.BREAKER_COOLDOWN_MS + 1)).toBe(true);
  });
});
