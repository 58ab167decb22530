// The bench's results as markdown: one table per section, one line of ratios, one line against
// the targets of the project's issue.
import type { CannonResult } from "../load/cannon";
import type { RateResult } from "../load/fixed-rate";
import type { LoadCpu } from "./load";
import { ms3 } from "./stats";

export type Target = "direct" | "portkey" | "ours" | "hit" | "miss" | "routed" | "failover";
export const LABEL: Record<Target, string> = {
  direct: "direct (mock)",
  portkey: "Portkey",
  ours: "ours",
  hit: "ours, cache hit",
  miss: "ours, cache miss",
  routed: "ours, via a route",
  failover: "ours, route failover",
};
/** `processes`: each process's command name and RSS in MB after the requests, largest first. */
export type Memory = { served: number; processes: string; bootMb: number; afterMb: number; largestMb: number; afterPssMb: number };

export type BenchResults = {
  date: string;
  machine: string;
  seconds: number;
  rate: number;
  connections: number;
  portkeyVersion: string;
  /** One entry per round (BENCH_LATENCY_ROUNDS): each target measured right after the direct call. */
  overhead: Partial<Record<Target, RateResult & LoadCpu>>[];
  streaming: Partial<Record<Target, RateResult & LoadCpu>>[];
  portkeyStreamProbe: string;
  throughput: Partial<Record<Target, CannonResult & LoadCpu>>;
  memory: Partial<Record<Target, Memory>>;
  profileDir?: string;
};

const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : "n/a");
const diff = (a: number | undefined, b: number | undefined) => ms3((a ?? NaN) - (b ?? NaN));
const perReq = (cpu: LoadCpu, group: string, requests: number) => (cpu.cpuMs[group] ?? NaN) / requests;
const pctOf = (share: number) => `${Math.round(share * 100)}%`;
type Rate = RateResult & LoadCpu;
type Pick = (x: Rate) => number;
const median = (xs: number[]) => {
  const sorted = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return !sorted.length ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** The target's figure minus the direct call's of the same round, for each round. */
const byRound = (rounds: Partial<Record<Target, Rate>>[], t: Target, pick: Pick) => rounds.map((r) => (r[t] && r.direct ? pick(r[t]) - pick(r.direct) : NaN));
/** The median over rounds of the target's figure minus the direct call's of the same round. */
export const overOf = (rounds: Partial<Record<Target, Rate>>[], t: Target, pick: Pick) => median(byRound(rounds, t, pick));
const totalP50: Pick = (x) => x.total.p50;
const totalP99: Pick = (x) => x.total.p99;
const firstP50: Pick = (x) => x.firstByte.p50;
const firstP99: Pick = (x) => x.firstByte.p99;

const table = (head: string[], rows: string[][]) => [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

export function renderReport(r: BenchResults): string {
  const overheadRows = r.overhead.flatMap((o, i) =>
    (Object.keys(o) as Target[]).map((t) => {
      const x = o[t]!;
      const base = t === "direct" ? "—" : null;
      return [String(i + 1), LABEL[t], String(x.sent), String(x.failed), f1(x.achievedRate), ms3(x.total.p50), ms3(x.total.p90), ms3(x.total.p99), ms3(x.total.max),
        base ?? diff(x.total.p50, o.direct?.total.p50), base ?? diff(x.total.p99, o.direct?.total.p99), f2(perReq(x, "target", x.sent)), pctOf(x.foreignBusy)];
    }),
  );
  const streamRows = r.streaming.flatMap((s, i) =>
    (Object.keys(s) as Target[]).map((t) => {
      const x = s[t]!;
      const base = t === "direct" ? "—" : null;
      return [String(i + 1), LABEL[t], String(x.sent), String(x.failed), ms3(x.firstByte.p50), ms3(x.firstByte.p90), ms3(x.firstByte.p99), ms3(x.firstByte.max),
        base ?? diff(x.firstByte.p50, s.direct?.firstByte.p50), base ?? diff(x.firstByte.p99, s.direct?.firstByte.p99), ms3(x.total.p50), ms3(x.total.p99), pctOf(x.foreignBusy)];
    }),
  );
  const rounds = (xs: number[]) => xs.map(ms3).join(", ");
  const overheadSummary = (["portkey", "ours"] as const)
    .map((t) => `${LABEL[t]} p50 +${ms3(overOf(r.overhead, t, totalP50))} ms (by round ${rounds(byRound(r.overhead, t, totalP50))}), p99 +${ms3(overOf(r.overhead, t, totalP99))} ms (${rounds(byRound(r.overhead, t, totalP99))})`)
    .join("; ");
  const streamSummary = `ours p50 +${ms3(overOf(r.streaming, "ours", firstP50))} ms (by round ${rounds(byRound(r.streaming, "ours", firstP50))}), p99 +${ms3(overOf(r.streaming, "ours", firstP99))} ms (${rounds(byRound(r.streaming, "ours", firstP99))})`;
  const th = r.throughput;
  const thRows = (Object.keys(th) as Target[]).map((t) => {
    const x = th[t]!;
    return [LABEL[t], String(Math.round(x.rps)), String(x.requests), String(x.errors), String(x.p50), String(x.p99),
      f2(perReq(x, "target", x.requests)), t === "ours" ? f2((x.cpuMs.target! + (x.cpuMs.postgres ?? 0)) / x.requests) : "—",
      f2(perReq(x, "load generator", x.requests)), pctOf(x.machineBusy), pctOf(x.foreignBusy)];
  });
  const memRows = (Object.keys(r.memory) as Target[]).map((t) => {
    const m = r.memory[t]!;
    return [LABEL[t], String(m.served), f1(m.bootMb), f1(m.afterMb), f1(m.afterPssMb), f1(m.largestMb), m.processes];
  });
  return [
    `Gateway bench, ${r.date}; ${r.machine}; the load generator, the mock, Portkey ${r.portkeyVersion}, PostgreSQL and our gateway share these cores.`,
    "",
    `### Overhead at ${r.rate} req/s, non-streamed (open loop, ${r.seconds} s per row, send to last byte, µs timing; ${r.overhead.length} rounds)`,
    "",
    `**Overhead over the direct call, median over rounds:** ${overheadSummary}.`,
    "",
    table(["round", "target", "requests", "failed", "achieved req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "overhead p50 ms", "overhead p99 ms", "CPU ms/req", "other load"], overheadRows),
    "",
    `### Streaming first byte at ${r.rate} req/s (open loop, ${r.seconds} s per row, send to first body byte; ${r.streaming.length} rounds)`,
    "",
    `**First-byte overhead over the direct call, median over rounds:** ${streamSummary}.`,
    "",
    table(["round", "target", "requests", "failed", "first byte p50 ms", "p90 ms", "p99 ms", "max ms", "overhead p50 ms", "overhead p99 ms", "whole stream p50 ms", "whole stream p99 ms", "other load"], streamRows),
    "",
    r.portkeyStreamProbe,
    "",
    `### Throughput at ${r.connections} connections (autocannon, non-streamed, ${r.seconds} s per row)`,
    "",
    table(["target", "req/s", "requests", "errors + non-2xx", "p50 ms", "p99 ms", "CPU ms/req", "CPU ms/req with PostgreSQL", "load generator CPU ms/req", "machine busy", "other load"], thRows),
    "",
    "### Memory (RSS summed over all the gateway's processes; PSS counts their shared pages once)",
    "",
    table(["gateway", "requests served", "RSS after boot MB", "RSS after MB", "PSS after MB", "largest process MB", "processes after (RSS MB)"], memRows),
    "",
    "\"other load\": share of the machine's CPU used by processes outside the bench during the row (near 0% for a clean row).",
    "",
    ratios(r),
    "",
    targets(r),
    "",
    cacheLine(r),
    "",
    routeLine(r),
    ...(r.profileDir ? ["", `CPU profiles of our gateway's processes: ${r.profileDir} (node --import tsx bench/top-functions.ts ${r.profileDir})`] : []),
  ].join("\n");
}

function ratios(r: BenchResults): string {
  const ours = r.throughput.ours;
  const pk = r.throughput.portkey;
  const tput = ours && pk ? ours.rps / pk.rps : NaN;
  const cpu = ours && pk ? perReq(ours, "target", ours.requests) / perReq(pk, "target", pk.requests) : NaN;
  const cpuPg = ours && pk ? ((ours.cpuMs.target! + (ours.cpuMs.postgres ?? 0)) / ours.requests) / perReq(pk, "target", pk.requests) : NaN;
  const over = (t: Target) => `+${ms3(overOf(r.overhead, t, totalP50))} / +${ms3(overOf(r.overhead, t, totalP99))} ms`;
  const fb = ms3(overOf(r.streaming, "ours", firstP50));
  return `**Ratios:** throughput ours/Portkey ${f2(tput)}×; CPU per request ours/Portkey ${f2(cpu)} (${f2(cpuPg)} counting PostgreSQL); overhead over direct at ${r.rate} req/s p50/p99 (medians over rounds): ours ${over("ours")}, Portkey ${over("portkey")}; stream first byte p50: ours +${fb} ms.`;
}

function targets(r: BenchResults): string {
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  const p50 = overOf(r.overhead, "ours", totalP50);
  const p99 = overOf(r.overhead, "ours", totalP99);
  const fb = overOf(r.streaming, "ours", firstP50);
  const ours = r.throughput.ours;
  const pk = r.throughput.portkey;
  const tput = ours && pk ? ours.rps / pk.rps : NaN;
  const cpu = ours && pk ? perReq(ours, "target", ours.requests) / perReq(pk, "target", pk.requests) : NaN;
  const rss = r.memory.ours?.afterMb ?? NaN;
  return [
    `**Against the targets:** overhead p50 ≤ 1 ms: ${mark(p50 <= 1)}; p99 ≤ 5 ms: ${mark(p99 <= 5)}; stream first byte p50 ≤ 1 ms: ${mark(fb <= 1)};`,
    `throughput ≥ 2× Portkey: ${mark(tput >= 2)}; CPU/request ≤ ½ Portkey's: ${mark(cpu <= 0.5)}; RSS ≤ 300 MB after ${r.memory.ours?.served ?? "?"} requests: ${mark(rss <= 300)}.`,
  ].join(" ");
}

/** The routes' rows: a call through a one-target route against the same call naming its model, and a failover (a 429 first) against the routed call. */
function routeLine(r: BenchResults): string {
  const th = r.throughput;
  if (!th.routed || !th.ours) return "";
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  const routedOver = overOf(r.overhead, "routed", totalP50) - overOf(r.overhead, "ours", totalP50);
  const failoverOver = th.failover ? overOf(r.overhead, "failover", totalP50) - overOf(r.overhead, "routed", totalP50) : NaN;
  return [
    `**Routes:** a call through a route minus the same call naming its model, p50 at ${r.rate} req/s (median over rounds): ${ms3(routedOver)} ms (within 0.05 ms: ${mark(routedOver <= 0.05)});`,
    `throughput ${f2(th.routed.rps / th.ours.rps)}× the direct-model call's;`,
    `a failover (the first target answers 429 at once) adds ${ms3(failoverOver)} ms at p50 over the routed call, that failed attempt's own time included (≤ 1 ms besides the failed attempt: ${mark(failoverOver <= 1)}), throughput ${th.failover ? f2(th.failover.rps / th.ours.rps) : "—"}×.`,
  ].join(" ");
}

/** The response cache's rows: a hit against the direct call and the uncached path, a miss against the uncached path. */
function cacheLine(r: BenchResults): string {
  const th = r.throughput;
  if (!th.hit || !th.ours) return "";
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  const hitOver = overOf(r.overhead, "hit", totalP50);
  const missOver = overOf(r.overhead, "miss", totalP50) - overOf(r.overhead, "ours", totalP50);
  const hitTput = th.hit.rps / th.ours.rps;
  const missTput = th.miss ? th.miss.rps / th.ours.rps : NaN;
  return [
    `**Response cache:** a hit's latency minus the direct call's at ${r.rate} req/s, p50 (median over rounds): ${ms3(hitOver)} ms (below the direct call: ${mark(hitOver < 0)});`,
    `hits at ${r.connections} connections ${f2(hitTput)}× the uncached path's throughput (above it: ${mark(hitTput > 1)});`,
    `a miss (a new prompt each call: looked up, called, its answer stored behind it) p50 ${ms3(missOver)} ms over the uncached path, throughput ${f2(missTput)}× the uncached path's.`,
  ].join(" ");
}
