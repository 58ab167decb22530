// Run by `npm install` (postinstall): one change to Prisma's client runtime, which every gateway
// process loads. Plain JavaScript, so it runs before anything else is installed or generated.
//
// Prisma 7's client reads its parameter graph (how it parameterises queries, one node per input
// and output type: about 3,200 here) into objects keyed by indices into its string table, such
// as `edges[1718] = ...`. V8 gives an object with such keys a holey array up to the highest one,
// so each node carried kilobytes of empty slots: 14 MB of a gateway process's 58 MB heap
// (`npm run bench:heap`). Starting each object in dictionary mode (one far index set and
// deleted) keeps only its entries: 2 MB for the same graph, lookups unchanged
// (docs/BENCHMARKS.md, "Memory").
//
// The change is made only where the code is exactly as expected; another Prisma version is left
// as it is, with a warning, and nothing else depends on it.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const MARK = "/* dictionary elements:";
const FROM = "let i=this.#i(),o={};for(let s=0;s<i;s++){let a=this.#i(),";
const TO = `let i=this.#i(),o={};o[1e9]=0;delete o[1e9];${MARK} the keys are sparse string-table indices, which would otherwise each get a holey array up to the highest */for(let s=0;s<i;s++){let a=this.#i(),`;

let runtime;
try {
  runtime = path.dirname(createRequire(import.meta.url).resolve("@prisma/client/runtime/client"));
} catch {
  process.exit(0); // not installed (yet): nothing to change
}
for (const name of ["client.js", "client.mjs"]) {
  const file = path.join(runtime, name);
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    continue;
  }
  if (text.includes(MARK)) continue; // already changed
  // Two readers: the input types' nodes and the output types'.
  if (text.split(FROM).length !== 3) {
    process.stderr.write(`patch-prisma-runtime: ${file} is not the code this change expects (another Prisma version?); left as it is\n`);
    continue;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text.split(FROM).join(TO));
  renameSync(tmp, file); // a new file: a second checkout's node_modules may share this one's inode
}
