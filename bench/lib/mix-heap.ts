// V8 heap snapshots of the gateway's processes for `npm run bench:mix-memory` (BENCH_HEAP=1): a
// process started with `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR` writes one when
// signalled. Each is read back into its heap by kind (constructor, or V8's internal type) and by
// script: the compiled code, function infos and source a module's functions hold, named by the
// package in node_modules, by Next.js's build output, or by the file.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** The flags that make the gateway's processes (and the processes they fork) write snapshots into `dir`. */
export const snapshotArgs = (dir: string) => `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;

/** Signals `pids` and waits until each has a snapshot in `dir` that stopped growing; returns its file per pid. */
export async function takeSnapshots(dir: string, pids: number[]): Promise<Map<number, string>> {
  const before = new Set(readdirSync(dir));
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  const mine = () => readdirSync(dir).filter((f) => !before.has(f) && pids.some((pid) => f.includes(`.${pid}.`)));
  let last = "";
  let still = 0;
  // V8 takes a while before it writes a byte: a file is whole once its size held for 3 s.
  for (let i = 0; i < 300 && still < 3; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const files = mine();
    const sizes = files.map((f) => statSync(path.join(dir, f)).size);
    const now = files.map((f, j) => `${f}:${sizes[j]}`).join(",");
    still = files.length >= pids.length && sizes.every((b) => b > 0) && now === last ? still + 1 : 0;
    last = now;
  }
  const out = new Map<number, string>();
  for (const f of mine()) {
    const pid = pids.find((p) => f.includes(`.${p}.`));
    if (pid !== undefined) out.set(pid, path.join(dir, f));
  }
  return out;
}

export type Snapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
};

export type HeapSummary = { totalMb: number; kinds: [string, number, number][]; scripts: [string, number][] };

/** Where a script's URL belongs: a package of node_modules, Next.js's server build, or the file itself. */
function owner(url: string): string {
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return `pkg ${rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (/\.next[^/]*\/server\//.test(url)) return "Next.js build output (.next/server)";
  if (/\.next[^/]*\/gateway\//.test(url)) return `gateway bundle ${url.slice(url.lastIndexOf("/") + 1)}`;
  if (url.startsWith("node:") || !url.includes("/")) return "node built-ins";
  return url.replace(/^file:\/\//, "");
}

/** Every object of a snapshot by kind (constructor, or V8's internal type): [own bytes, count], and the heap's total bytes. */
export function kindsOf(snap: Snapshot): { by: Map<string, [number, number]>; total: number } {
  const nf = snap.snapshot.meta.node_fields;
  const nodeTypes = snap.snapshot.meta.node_types[0];
  const N = nf.length;
  const [iType, iName, iSize] = ["type", "name", "self_size"].map((f) => nf.indexOf(f)) as [number, number, number];
  const by = new Map<string, [number, number]>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += N) {
    const t = nodeTypes[snap.nodes[i + iType]!]!;
    const s = snap.nodes[i + iSize]!;
    total += s;
    const nm = snap.strings[snap.nodes[i + iName]!]!;
    const kind = t === "object" || t === "closure" ? `${t} ${nm.slice(0, 60)}` : t.includes("string") ? "strings" : t === "native" ? `native ${nm.slice(0, 40)}` : t;
    const e = by.get(kind) ?? [0, 0];
    e[0] += s;
    e[1]++;
    by.set(kind, e);
  }
  return { by, total };
}

export const readSnapshot = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Snapshot;

/**
 * A snapshot's heap: the `top` largest kinds by own size (MB, count), and the code each script's
 * functions hold (a script's source, and its function infos with what they point to that is code:
 * bytecode, feedback, compiled code), summed by owner (MB).
 */
export function summarizeHeap(file: string, top = 15): HeapSummary {
  const snap = readSnapshot(file);
  const nf = snap.snapshot.meta.node_fields;
  const ef = snap.snapshot.meta.edge_fields;
  const nodeTypes = snap.snapshot.meta.node_types[0];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const [iType, iName, iSize, iEdges] = ["type", "name", "self_size", "edge_count"].map((f) => nf.indexOf(f)) as [number, number, number, number];
  const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((f) => ef.indexOf(f)) as [number, number, number];
  const count = snap.nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += snap.nodes[n * N + iEdges]! * E;
    firstEdge[n + 1] = e;
  }
  const type = (n: number) => nodeTypes[snap.nodes[n * N + iType]!]!;
  const name = (n: number) => snap.strings[snap.nodes[n * N + iName]!]!;
  const size = (n: number) => snap.nodes[n * N + iSize]!;
  /** The named edges of node n: [edge name, target node]. */
  const named = function* (n: number): Generator<[string, number]> {
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += E) {
      const t = edgeTypes[snap.edges[e + eType]!];
      if (t === "element" || t === "hidden") {
        yield ["", snap.edges[e + eTo]! / N];
        continue;
      }
      yield [snap.strings[snap.edges[e + eName]!] ?? "", snap.edges[e + eTo]! / N];
    }
  };

  const { by, total } = kindsOf(snap);

  // Scripts: a code node with a "source" edge (V8's Script), named by its URL.
  const scriptUrl = new Map<number, string>();
  const counted = new Uint8Array(count);
  const perOwner = new Map<string, number>();
  const add = (url: string, bytes: number) => perOwner.set(owner(url), (perOwner.get(owner(url)) ?? 0) + bytes);
  for (let n = 0; n < count; n++) {
    if (type(n) !== "code") continue;
    let url = name(n);
    let source = -1;
    for (const [edge, to] of named(n)) {
      if (edge === "name" && !url && type(to).includes("string")) url = name(to);
      if (edge === "source") source = to;
    }
    if (source < 0 || !url) continue;
    scriptUrl.set(n, url);
    counted[n] = 1;
    add(url, size(n));
    if (source >= 0 && !counted[source]) {
      counted[source] = 1;
      add(url, size(source));
    }
  }
  // Function infos: a code node with a "script" edge to one of those; it and the code it points to.
  for (let n = 0; n < count; n++) {
    if (type(n) !== "code" || counted[n]) continue;
    let url: string | undefined;
    for (const [edge, to] of named(n)) if ((edge === "script" || edge === "script_or_debug_info") && scriptUrl.has(to)) url = scriptUrl.get(to);
    if (!url) continue;
    counted[n] = 1;
    let bytes = size(n);
    for (const [edge, to] of named(n)) {
      if (scriptUrl.has(to) || counted[to] || type(to) !== "code") continue;
      counted[to] = 1;
      bytes += size(to);
    }
    add(url, bytes);
  }
  const kinds = [...by].sort((a, b) => b[1][0] - a[1][0]).slice(0, top).map(([k, [s, c]]) => [k, s / 1048576, c] as [string, number, number]);
  const scripts = [...perOwner].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, s]) => [k, s / 1048576] as [string, number]);
  return { totalMb: total / 1048576, kinds, scripts };
}

export function heapMarkdown(title: string, s: HeapSummary): string {
  const esc = (k: string) => k.replace(/\|/g, "\\|");
  return [
    `${title}: V8 heap ${s.totalMb.toFixed(1)} MB`,
    "",
    "| kind | MB | count |",
    "|---|---|---|",
    ...s.kinds.map(([k, mb, n]) => `| ${esc(k)} | ${mb.toFixed(2)} | ${n} |`),
    "",
    "| code and source by script's owner | MB |",
    "|---|---|",
    ...s.scripts.map(([k, mb]) => `| ${esc(k)} | ${mb.toFixed(2)} |`),
    "",
  ].join("\n");
}
