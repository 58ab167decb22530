// Helpers for tests that put a stand-in node of another wire format behind the gateway.
import { expect } from "vitest";
import { db } from "../server/infra/db/client";
import { Channel, notify } from "../server/infra/db/notify";
import { formatMoney, money } from "../server/kernel/money";
import { checkAllNodes } from "../server/routing/nodes/health-check";
import { until } from "./helpers";

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A 1x1 PNG, base64. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** Checks the nodes now and tells every gateway process that nodes and the catalog changed. */
export async function refreshRouting(): Promise<void> {
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
}

/** Until the gateway's catalog has seen it, a call answers 400 model_not_priced; `price` prices it, and then it is served. */
export async function refusedUntilPriced(ask: () => Promise<Any>, price: () => Promise<unknown>, calls: () => number): Promise<void> {
  const refused = await until(
    () => ask().catch((e: Any) => e),
    (e) => e?.status === 400 && e?.code === "model_not_priced",
    10_000,
  );
  expect(refused.value).toMatchObject({ status: 400, code: "model_not_priced" });
  expect(calls()).toBe(0);
  await price();
  const served = await until(
    () => ask().catch((e: Any) => e),
    (r) => r?.object === "chat.completion",
    10_000,
  );
  expect(served.value.object).toBe("chat.completion");
}

export type Prices = { input: string; output: string; cacheRead?: string; cacheWrite?: string; reasoning?: string };
export type Tokens = { input: number; cached: number; written?: number; output: number; reasoning: number };

/** The cost of a usage at a model's prices per million tokens, as the ledger computes it. */
export function costOf(p: Prices, u: Tokens): string {
  const written = u.written ?? 0;
  return formatMoney(
    money(p.input)
      .times(u.input - u.cached - written)
      .plus(money(p.cacheRead ?? p.input).times(u.cached))
      .plus(money(p.cacheWrite ?? p.input).times(written))
      .plus(money(p.output).times(u.output - u.reasoning))
      .plus(money(p.reasoning ?? p.output).times(u.reasoning))
      .dividedBy(1_000_000),
  );
}
