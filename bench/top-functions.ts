// The functions with the most self time in V8 CPU profiles (.cpuprofile, as written by
// `node --cpu-prof`). Takes files or folders; several profiles (one per process) are added up.
//
//   node --import tsx bench/top-functions.ts /tmp/gateway-cpu-prof-XXXX [--top 25]
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
type Profile = { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] };

/** Self time (µs) per function, keyed by name and place, over all samples of these profiles. */
function selfTimes(files: string[]): Map<string, number> {
  const self = new Map<string, number>();
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      const us = deltas[i + 1] ?? 0; // a sample lasts until the next one
      const frame = byId.get(samples[i]!)?.callFrame;
      if (!frame || us <= 0) continue;
      const where = frame.url ? `  ${frame.url.replace(/^file:\/\//, "").replace(`${process.cwd()}/`, "")}:${frame.lineNumber + 1}` : "";
      const key = `${frame.functionName || "(anonymous)"}${where}`;
      self.set(key, (self.get(key) ?? 0) + us);
    }
  }
  return self;
}

/** A markdown summary: idle, program and GC shares, then the top functions by self time. */
export function topFunctions(paths: string[], top = 25): string {
  const files = paths.flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(p, f)) : [p]));
  if (!files.length) return `no .cpuprofile files in ${paths.join(", ")}`;
  const self = selfTimes(files);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const busy = total - (self.get("(idle)") ?? 0);
  const share = (us: number, of: number) => `${((us / of) * 100).toFixed(1)}%`;
  const special = ["(idle)", "(program)", "(garbage collector)"].map((n) => `${n} ${share(self.get(n) ?? 0, total)}`);
  const rows = [...self]
    .filter(([key]) => key !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => `| ${(us / 1000).toFixed(0)} | ${share(us, busy)} | \`${key}\` |`);
  return [
    `${files.length} profile(s), ${(total / 1e6).toFixed(1)} s sampled: ${special.join(", ")}`,
    "",
    "| self ms | % of non-idle | function |",
    "|---|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--top");
  const top = at >= 0 ? Number(args.splice(at, 2)[1]) : 25;
  if (!args.length) {
    console.error("usage: node --import tsx bench/top-functions.ts <file.cpuprofile | folder>... [--top N]");
    process.exit(1);
  }
  console.log(topFunctions(args, top));
}
