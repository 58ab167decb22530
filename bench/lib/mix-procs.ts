// The memory of an instance's processes, one by one, at the stages of `npm run bench:mix-memory`:
// each process named by its part (the first serving process, another serving one, the batch
// process, the built-in node, PostgreSQL), its RSS split into its own pages (anonymous: heaps,
// WebAssembly) and mapped files (code), and its PSS.
import { readFileSync } from "node:fs";
import { commandName, processTree, pssMb, rssMb, rssParts } from "./proc";

export type Part = "gateway" | "node" | "postgres";
export type ProcMemory = { pid: number; name: string; part: Part; rss: number; pss: number; anon: number; file: number };
export type Stage = { label: string; procs: ProcMemory[] };

function environ(pid: number): Map<string, string> {
  try {
    const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    return new Map(pairs.filter(Boolean).map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
  } catch {
    return new Map();
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/** What a process of the gateway's tree is: its name in the tables and its part. */
export function nameOf(pid: number): { name: string; part: Part } {
  const line = cmdline(pid);
  if (line.includes("local-node/main")) return { name: "built-in node", part: "node" };
  if (!line.includes("gateway-server")) return { name: `${commandName(pid)} (child)`, part: "gateway" };
  const env = environ(pid);
  const role = env.get("GATEWAY_PROCESS_ROLE");
  if (role) return { name: `${role} process`, part: "gateway" };
  const index = env.get("GATEWAY_PROCESS_INDEX");
  return { name: index ? `serving #${index}` : "serving #0 (first)", part: "gateway" };
}

/** Each process's memory now: the gateway's tree (`pids`, the built-in node among them) and PostgreSQL's. */
export function measure(label: string, pids: number[], postgres: number[]): Stage {
  // The built-in node's own children (ffmpeg, espeak) are the node's.
  const nodeTree = new Set(processTree(pids.filter((pid) => nameOf(pid).part === "node")));
  const named = pids.map((pid) => ({ pid, ...(nodeTree.has(pid) && nameOf(pid).part !== "node" ? { name: `${commandName(pid)} (built-in node's child)`, part: "node" as Part } : nameOf(pid)) }));
  const all = [...named, ...postgres.map((pid) => ({ pid, name: "postgres", part: "postgres" as Part }))];
  const rss = rssMb(all.map((p) => p.pid));
  const pss = pssMb(all.map((p) => p.pid));
  const procs = all.map((p, i) => ({ ...p, rss: rss[i]!, pss: pss[i]!, ...rssParts(p.pid) })).filter((p) => p.rss > 0);
  return { label, procs };
}

export const sum = (procs: ProcMemory[], part: Part, pick: (p: ProcMemory) => number) => procs.filter((p) => p.part === part).reduce((a, p) => a + pick(p), 0);

/** One line of a stage for the log. */
export function stageLine(s: Stage): string {
  const gw = s.procs.filter((p) => p.part === "gateway");
  const each = gw.map((p) => `${p.name}[${p.pid}] ${Math.round(p.rss)} (${Math.round(p.anon)} own)`).join(", ");
  const node = sum(s.procs, "node", (p) => p.rss);
  const pg = sum(s.procs, "postgres", (p) => p.rss);
  const pgPss = sum(s.procs, "postgres", (p) => p.pss);
  return `${s.label}: gateway RSS ${Math.round(sum(s.procs, "gateway", (p) => p.rss))} MB, PSS ${Math.round(sum(s.procs, "gateway", (p) => p.pss))} MB (${each}); built-in node ${Math.round(node)} MB; PostgreSQL RSS ${Math.round(pg)} MB, PSS ${Math.round(pgPss)} MB`;
}

const f0 = (v: number | undefined) => (v === undefined ? "—" : String(Math.round(v)));

/**
 * The stages as markdown: a row per gateway process (by name; "RSS (own)" in each stage's
 * column), the gateway's sums (RSS, PSS), the built-in node, and PostgreSQL (summed over its
 * processes, RSS and PSS).
 */
export function stagesTable(stages: Stage[]): string {
  const names = [...new Set(stages.flatMap((s) => s.procs.filter((p) => p.part === "gateway").map((p) => p.name)))];
  const cell = (s: Stage, name: string) => {
    const ps = s.procs.filter((p) => p.part === "gateway" && p.name === name);
    if (!ps.length) return "—";
    const rss = ps.reduce((a, p) => a + p.rss, 0);
    const anon = ps.reduce((a, p) => a + p.anon, 0);
    return `${f0(rss)} (${f0(anon)})`;
  };
  const head = ["MB", ...stages.map((s) => s.label)];
  const rows = [
    ...names.map((n) => [`${n}: RSS (own)`, ...stages.map((s) => cell(s, n))]),
    ["**gateway RSS**", ...stages.map((s) => `**${f0(sum(s.procs, "gateway", (p) => p.rss))}**`)],
    ["gateway PSS", ...stages.map((s) => f0(sum(s.procs, "gateway", (p) => p.pss)))],
    ["built-in node: RSS (own)", ...stages.map((s) => `${f0(sum(s.procs, "node", (p) => p.rss))} (${f0(sum(s.procs, "node", (p) => p.anon))})`)],
    ["PostgreSQL: RSS / PSS (processes)", ...stages.map((s) => `${f0(sum(s.procs, "postgres", (p) => p.rss))} / ${f0(sum(s.procs, "postgres", (p) => p.pss))} (${s.procs.filter((p) => p.part === "postgres").length})`)],
  ];
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/** A process's smaps_rollup, in MB: what `Rss` is made of (anonymous, file-backed, shared memory, swapped). */
export function rollup(pid: number): Record<string, number> {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^(Rss|Pss|Pss_Anon|Pss_File|Pss_Shmem|Shared_Clean|Shared_Dirty|Private_Clean|Private_Dirty|Anonymous|Swap):\s+(\d+) kB/gm)) out[m[1]!] = Number(m[2]) / 1024;
    return out;
  } catch {
    return {};
  }
}
