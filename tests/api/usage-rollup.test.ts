// The usage summaries read the daily rollups that the ledger's statement keeps as it inserts usage
// events. Their figures must be exactly those of the events, for every filter: here events of
// several days, models, keys, plans, subjects, tags and cache hits, with costs of 18 decimals,
// charged through the ledger in two batches at once, are summed in code and compared with
// usageSummary's answer, and the rollups with the events in SQL.
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { applyMovements, usageMovement } from "../../server/ledger/movements";
import { usageSummary, type UsageSummary } from "../../server/ledger/usage/usage-summary";
import type { UsageFilter } from "../../server/ledger/usage/usage-filter";
import { newWorkspace } from "../helpers";

type Event = {
  id: string; workspaceId: string; apiKeyId: string | null; modelId: string; endpoint: string; inputTokens: number; outputTokens: number;
  cost: string; planId: string | null; subject: string | null; tags: Record<string, string> | null; cacheHit: boolean; cacheSaved: string; createdAt: Date;
};

const DAY = 86_400_000;
const pick = <T>(xs: T[], i: number) => xs[i % xs.length]!;

function eventsFor(workspaceId: string, prefix: string, n: number, today: number): Event[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    workspaceId,
    apiKeyId: pick(["key_a", "key_b", null], i),
    modelId: pick(["model-x", "model-y", "model-z"], i * 7),
    endpoint: "/v1/chat/completions",
    inputTokens: 10 + i,
    outputTokens: 3 * i,
    cost: `0.${String(123456789012345678n + BigInt(i) * 987654321n).padStart(18, "0")}`,
    planId: pick(["plan_gold", null, "plan_free", null], i),
    subject: i % 4 === 0 ? pick(["ann", "bob"], i) : null,
    tags: pick<Record<string, string> | null>([{ team: "search", feature: "chat" }, { team: "ads" }, null, { feature: "chat" }, { team: "search" }], i),
    cacheHit: i % 6 === 0,
    cacheSaved: i % 6 === 0 ? "0.000000000000000001" : "0",
    createdAt: new Date(today - pick([0, 1, 2, 5], i) * DAY + (i % 50) * 60_000),
  }));
}

type Sum = { cost: string; requests: number; inputTokens: number; outputTokens: number; cacheHits: number; cacheSaved: string };
const empty = (): Sum => ({ cost: "0", requests: 0, inputTokens: 0, outputTokens: 0, cacheHits: 0, cacheSaved: "0" });
function add(s: Sum, e: Event): void {
  s.cost = money(s.cost).plus(e.cost).toString();
  s.requests += 1;
  s.inputTokens += e.inputTokens;
  s.outputTokens += e.outputTokens;
  if (e.cacheHit) s.cacheHits += 1;
  s.cacheSaved = money(s.cacheSaved).plus(e.cacheSaved).toString();
}
const out = (s: Sum) => ({ ...s, cost: formatMoney(s.cost), cacheSaved: formatMoney(s.cacheSaved) });
const byCost = (a: [string | null, Sum], b: [string | null, Sum]) =>
  money(b[1].cost).comparedTo(a[1].cost) || (a[0] === b[0] ? 0 : a[0] === null ? 1 : b[0] === null ? -1 : a[0] < b[0] ? -1 : 1);

/** The summary computed in code from the events. */
function expected(events: Event[], filter: UsageFilter, from: string, to: string, groupByTag?: string): UsageSummary {
  const matching = events.filter((e) => {
    const day = e.createdAt.toISOString().slice(0, 10);
    if (day < from || day > to) return false;
    if (filter.apiKeyId && e.apiKeyId !== filter.apiKeyId) return false;
    if (filter.planId && e.planId !== filter.planId) return false;
    if (filter.subject && e.subject !== filter.subject) return false;
    if (filter.tag) {
      const [k, v] = filter.tag.split("=");
      if (!e.tags || !(k! in e.tags) || (v !== undefined && e.tags[k!] !== v)) return false;
    }
    return true;
  });
  const totals = empty();
  const days = new Map<string, Sum>();
  const models = new Map<string, Sum>();
  const groups = new Map<string | null, Sum>();
  for (const e of matching) {
    add(totals, e);
    const day = e.createdAt.toISOString().slice(0, 10);
    add(days.get(day) ?? days.set(day, empty()).get(day)!, e);
    add(models.get(e.modelId) ?? models.set(e.modelId, empty()).get(e.modelId)!, e);
    if (groupByTag) {
      const v = e.tags?.[groupByTag] ?? null;
      add(groups.get(v) ?? groups.set(v, empty()).get(v)!, e);
    }
  }
  const allDays: UsageSummary["days"] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY) {
    const day = new Date(t).toISOString().slice(0, 10);
    allDays.push({ day, ...out(days.get(day) ?? empty()) });
  }
  return {
    from,
    to,
    totals: out(totals),
    days: allDays,
    models: [...models].sort(byCost).map(([modelId, s]) => ({ modelId: modelId!, ...out(s) })),
    ...(groupByTag && { tagGroups: [...groups].sort(byCost).map(([value, s]) => ({ value, ...out(s) })) }),
  };
}

/** Charges the events through the ledger's one statement (as the usage writer does), each at its own time. */
function charge(events: Event[]) {
  const movements = events.map((e) =>
    usageMovement({ workspaceId: e.workspaceId, apiKeyId: e.apiKeyId }, e.cost, {
      eventId: e.id, modelId: e.modelId, nodeId: null, endpoint: e.endpoint, inputTokens: e.inputTokens, outputTokens: e.outputTokens,
      planId: e.planId, subject: e.subject, tags: e.tags, cacheHit: e.cacheHit, cacheSaved: e.cacheSaved, at: e.createdAt.toISOString(),
    }),
  );
  return db.$transaction((tx) => applyMovements(tx, movements));
}

/** The workspaces of this file's events (other test files may write events their own way). */
const mine: string[] = [];

describe("usage summaries from the daily rollups", () => {
  it("equal the events' sums for every filter, with batches charged at once", async () => {
    const { workspace } = await newWorkspace("1");
    const other = await newWorkspace("1");
    mine.push(workspace.id, other.workspace.id);
    const today = Date.now();
    const a = eventsFor(workspace.id, `${workspace.id}-a`, 120, today);
    const b = eventsFor(workspace.id, `${workspace.id}-b`, 80, today);
    const noise = eventsFor(other.workspace.id, `${other.workspace.id}-n`, 30, today);
    // Three statements committing at once on three connections: the rollups' upserts must add up.
    await Promise.all([charge(a), charge(b), charge(noise)]);
    const events = [...a, ...b];
    const to = new Date(today).toISOString().slice(0, 10);
    const from = new Date(today - 6 * DAY).toISOString().slice(0, 10);
    const filters: [UsageFilter, string?][] = [
      [{}],
      [{ apiKeyId: "key_a" }],
      [{ planId: "plan_gold" }],
      [{ apiKeyId: "key_b", planId: "plan_free" }],
      [{ tag: "team=search" }],
      [{ tag: "feature" }],
      [{ subject: "ann" }],
      [{ tag: "team=search", apiKeyId: "key_a" }],
      [{}, "team"],
      [{}, "feature"],
      [{ apiKeyId: "key_a" }, "team"],
      [{ tag: "feature=chat" }, "team"],
    ];
    for (const [filter, groupByTag] of filters) {
      const got = await usageSummary(workspace.id, { ...filter, from, to }, groupByTag);
      expect(got, JSON.stringify({ filter, groupByTag })).toEqual(expected(events, filter, from, to, groupByTag));
    }
    // A narrower range than the events'.
    const yesterday = new Date(today - DAY).toISOString().slice(0, 10);
    expect(await usageSummary(workspace.id, { from: yesterday, to: yesterday })).toEqual(expected(events, {}, yesterday, yesterday));
  });

  it("hold exactly what the events hold, compared in SQL", async () => {
    const diff = await db.$queryRaw<{ n: number }[]>`
      WITH from_events AS (
        SELECT "workspaceId", "createdAt"::date AS day, "modelId", COALESCE("apiKeyId", '') AS k, COALESCE("planId", '') AS p,
          SUM("cost") AS cost, COUNT(*) AS requests, SUM("inputTokens") AS i, SUM("outputTokens") AS o, COUNT(*) FILTER (WHERE "cacheHit") AS h, SUM("cacheSaved") AS s
        FROM "UsageEvent" WHERE "workspaceId" = ANY(${mine}) GROUP BY 1, 2, 3, 4, 5
      ), rollup AS (
        SELECT "workspaceId", "day", "modelId", "apiKeyId", "planId", "cost", "requests", "inputTokens", "outputTokens", "cacheHits", "cacheSaved"
        FROM "UsageDaily" WHERE "workspaceId" = ANY(${mine})
      )
      SELECT COUNT(*)::int AS n FROM ((SELECT * FROM from_events EXCEPT SELECT * FROM rollup) UNION ALL (SELECT * FROM rollup EXCEPT SELECT * FROM from_events)) d`;
    expect(mine).toHaveLength(2);
    expect(diff[0]!.n).toBe(0);
  });
});
