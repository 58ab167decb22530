// What grew in a process's heap between two V8 heap snapshots (each taken after a full collection):
// the kinds of objects whose own size grew most, with their counts, for `npm run soak`'s
// SOAK_HEAP=1.
import { kindsOf, readSnapshot } from "./mix-heap";

export type HeapGrowth = { beforeMb: number; afterMb: number; kinds: { kind: string; mb: number; count: number; beforeCount: number }[] };

export function heapGrowth(before: string, after: string, top = 15): HeapGrowth {
  const a = kindsOf(readSnapshot(before));
  const b = kindsOf(readSnapshot(after));
  const kinds = [...b.by].map(([kind, [bytes, count]]) => {
    const [was, wasCount] = a.by.get(kind) ?? [0, 0];
    return { kind, mb: (bytes - was) / 1048576, count: count - wasCount, beforeCount: wasCount };
  });
  for (const [kind, [bytes, count]] of a.by) if (!b.by.has(kind)) kinds.push({ kind, mb: -bytes / 1048576, count: -count, beforeCount: count });
  kinds.sort((x, y) => y.mb - x.mb);
  return { beforeMb: a.total / 1048576, afterMb: b.total / 1048576, kinds: kinds.slice(0, top) };
}

export function growthMarkdown(title: string, g: HeapGrowth): string {
  const esc = (k: string) => k.replace(/\|/g, "\\|");
  return [
    `${title}: V8 heap ${g.beforeMb.toFixed(1)} -> ${g.afterMb.toFixed(1)} MB`,
    "",
    "| kind | MB more | count more | count before |",
    "|---|---|---|---|",
    ...g.kinds.map((k) => `| ${esc(k.kind)} | ${k.mb.toFixed(3)} | ${k.count} | ${k.beforeCount} |`),
    "",
  ].join("\n");
}
