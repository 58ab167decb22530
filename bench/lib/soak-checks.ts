// What the soak checks once its traffic has stopped and every instance has written what it owed:
// every answer has its request-log row, every answered call is billed once and no refusal is,
// each workspace's balance is its credits minus its usage exactly, a rate limit held across the
// instances, and latency and memory stayed flat from the first minute to the last.
import { db } from "../../server/infra/db/client";
import { formatMoney, money, type Money } from "../../server/kernel/money";
import type { Answer, CallKind } from "./soak-traffic";
import { summarize } from "./stats";

export type Check = { name: string; ok: boolean; detail: string };

const BILLED: CallKind[] = ["chat", "stream", "embeddings", "cache-hit", "cache-miss", "limited"];
const sum = (values: { toString(): string }[]): Money => values.reduce<Money>((acc, v) => acc.plus(money(v)), money(0));

async function countsById(table: "RequestLog" | "UsageEvent", ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db.$queryRawUnsafe<{ id: string; n: bigint }[]>(`SELECT id, count(*) AS n FROM "${table}" WHERE id = ANY($1) GROUP BY id`, ids.slice(i, i + 5000));
    for (const r of rows) counts.set(r.id, Number(r.n));
  }
  return counts;
}

/** Waits until the request log stops growing (every instance's spool committed), up to `timeoutMs`. */
export async function settle(timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = -1;
  for (;;) {
    const [{ n }] = (await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "RequestLog"`)) as [{ n: bigint }];
    if (Number(n) === last || Date.now() > end) return;
    last = Number(n);
    await new Promise((r) => setTimeout(r, 3000));
  }
}

export async function logRows(answers: Answer[]): Promise<Check> {
  const withId = answers.filter((a) => a.requestId);
  const counts = await countsById("RequestLog", withId.map((a) => a.requestId!));
  const missing = withId.filter((a) => !counts.has(a.requestId!));
  const doubled = withId.filter((a) => (counts.get(a.requestId!) ?? 0) > 1);
  const noId = answers.length - withId.length;
  return {
    name: "every answer has one request-log row",
    ok: missing.length === 0 && doubled.length === 0 && noId === 0,
    detail: `${withId.length} answers with an id: ${missing.length} without a row, ${doubled.length} with more than one; ${noId} answers without an id${missing.length ? ` (first missing: ${missing.slice(0, 3).map((a) => `${a.kind} ${a.status} ${a.requestId}`).join(", ")})` : ""}`,
  };
}

export async function billedOnce(answers: Answer[]): Promise<Check> {
  const withId = answers.filter((a) => a.requestId);
  const counts = await countsById("UsageEvent", withId.map((a) => a.requestId!));
  const answered = withId.filter((a) => a.status === 200 && BILLED.includes(a.kind));
  const unbilled = answered.filter((a) => counts.get(a.requestId!) !== 1);
  const refused = withId.filter((a) => a.status !== 200);
  const billedRefusals = refused.filter((a) => counts.has(a.requestId!));
  return {
    name: "every answered call billed once, no refusal billed",
    ok: unbilled.length === 0 && billedRefusals.length === 0,
    detail: `${answered.length} answered calls: ${unbilled.length} not billed exactly once; ${refused.length} refusals: ${billedRefusals.length} billed`,
  };
}

export async function moneyExact(workspaces: { name: string; id: string }[]): Promise<Check> {
  const lines: string[] = [];
  let ok = true;
  for (const w of workspaces) {
    const credits = sum((await db.creditLedgerEntry.findMany({ where: { workspaceId: w.id }, select: { amount: true } })).map((c) => c.amount));
    const [{ total, n }] = (await db.$queryRawUnsafe<{ total: string | null; n: bigint }[]>(`SELECT sum(cost)::text AS total, count(*) AS n FROM "UsageEvent" WHERE "workspaceId" = $1`, w.id)) as [{ total: string | null; n: bigint }];
    const usage = money(total ?? "0");
    const balance = money((await db.workspace.findUniqueOrThrow({ where: { id: w.id }, select: { balance: true } })).balance);
    const exact = balance.eq(credits.minus(usage));
    ok &&= exact;
    const byEndpoint = await db.$queryRawUnsafe<{ endpoint: string; n: bigint }[]>(`SELECT endpoint, count(*) AS n FROM "UsageEvent" WHERE "workspaceId" = $1 GROUP BY endpoint ORDER BY endpoint`, w.id);
    lines.push(`${w.name}: ${n} usage events (${byEndpoint.map((e) => `${e.endpoint} ${e.n}`).join(", ")}), $${formatMoney(usage)}; credits $${formatMoney(credits)} - usage = balance $${formatMoney(balance)}: ${exact ? "exact" : "NOT EXACT"}`);
  }
  return { name: "each workspace's balance is its credits minus its usage, exactly", ok, detail: lines.join("; ") };
}

/** The limited key's admitted calls per UTC minute (by the middle of each call), never above `rpm`. */
export function limitHeld(answers: Answer[], startedEpochMs: number, rpm: number): Check {
  const perMinute = new Map<number, { admitted: number; refused: number }>();
  for (const a of answers.filter((x) => x.kind === "limited")) {
    const minute = Math.floor((startedEpochMs + a.at + a.ms / 2) / 60_000);
    const m = perMinute.get(minute) ?? { admitted: 0, refused: 0 };
    if (a.status === 200) m.admitted++;
    else if (a.status === 429) m.refused++;
    perMinute.set(minute, m);
  }
  const minutes = [...perMinute.entries()].sort(([a], [b]) => a - b);
  const over = minutes.filter(([, m]) => m.admitted > rpm);
  const others = answers.filter((a) => a.kind === "limited" && a.status !== 200 && a.status !== 429).length;
  return {
    name: `a key limited to ${rpm} requests a minute got at most ${rpm} in any minute across the instances`,
    ok: over.length === 0 && others === 0,
    detail: `admitted/refused per UTC minute: ${minutes.map(([t, m]) => `${new Date(t * 60_000).toISOString().slice(11, 16)} ${m.admitted}/${m.refused}`).join(", ")}${others ? `; ${others} answered neither 200 nor 429` : ""}`,
  };
}

export type MemorySample = { at: number; gateway: number; workers: number; postgres: number; /** PostgreSQL's client connections. */ connections: number };
export type MinuteRow = { label: string; calls: number; p50: number; p99: number; failed: number; memory: MemorySample | undefined };

function row(label: string, answers: Answer[], memory: MemorySample[], from: number, to: number): MinuteRow {
  const inRow = answers.filter((a) => a.at >= from && a.at < to);
  const s = summarize(inRow.filter((a) => a.kind === "chat" && a.status === 200).map((a) => a.ms * 1000));
  return { label, calls: inRow.length, p50: s.p50, p99: s.p99, failed: inRow.filter(unexpected).length, memory: memory.filter((r) => r.at <= to + 1000).at(-1) };
}

/**
 * The warm-up (the traffic's first `warmupMs`), then each of `count` minutes after it: the plain
 * chat calls' latency (ms), the calls that failed unexpectedly, and the memory sampled last in it.
 */
export function minutes(answers: Answer[], memory: MemorySample[], warmupMs: number, count: number): { warmup: MinuteRow; rows: MinuteRow[] } {
  const rows: MinuteRow[] = [];
  for (let m = 0; m < count; m++) rows.push(row(String(m + 1), answers, memory, warmupMs + m * 60_000, m === count - 1 ? Infinity : warmupMs + (m + 1) * 60_000));
  return { warmup: row(`warm-up (${warmupMs / 1000} s)`, answers, memory, 0, warmupMs), rows };
}

/** An answer that is not what its kind must get: a billed kind not 200 (the limited key may get 429), a refusal not its status, a broken body. */
export function unexpected(a: Answer): boolean {
  if (a.broken) return true;
  switch (a.kind) {
    case "bad-key":
      return a.status !== 401;
    case "bad-input":
      return a.status !== 400;
    case "limited":
      return a.status !== 200 && a.status !== 429;
    default:
      return a.status !== 200;
  }
}

export function flat(rows: MinuteRow[], p99Ratio: number, rssRatio: number): Check[] {
  const first = rows[0]!;
  const lastRow = rows.at(-1)!;
  return [
    {
      name: `p99 of plain chat flat (last minute ≤ ${p99Ratio}× the first, or within 1 ms)`,
      ok: lastRow.p99 <= Math.max(first.p99 * p99Ratio, first.p99 + 1),
      detail: `first minute ${first.p99.toFixed(2)} ms, last ${lastRow.p99.toFixed(2)} ms`,
    },
    {
      name: `memory of the gateway's instances flat (end of the last minute ≤ ${rssRatio}× the end of the first)`,
      ok: !!first.memory && !!lastRow.memory && lastRow.memory.gateway <= first.memory.gateway * rssRatio,
      detail: `RSS of the instances: first minute ${first.memory?.gateway.toFixed(0)} MB, last ${lastRow.memory?.gateway.toFixed(0)} MB; workers ${first.memory?.workers.toFixed(0)} -> ${lastRow.memory?.workers.toFixed(0)} MB; PostgreSQL (PSS) ${first.memory?.postgres.toFixed(0)} -> ${lastRow.memory?.postgres.toFixed(0)} MB`,
    },
  ];
}

export function noneUnexpected(answers: Answer[]): Check {
  const bad = answers.filter(unexpected);
  const byKind = new Map<string, number>();
  for (const a of bad) byKind.set(`${a.kind} ${a.status}${a.broken ? " broken" : ""}`, (byKind.get(`${a.kind} ${a.status}${a.broken ? " broken" : ""}`) ?? 0) + 1);
  return { name: "every call got the answer its kind must get", ok: bad.length === 0, detail: `${answers.length} calls, ${bad.length} unexpected${bad.length ? `: ${[...byKind].map(([k, n]) => `${k} ×${n}`).join(", ")}` : ""}` };
}
