// Prisma's query compiler (WebAssembly), compiled from its package's base64 module read as a file.
// The generated client imports that module (`…wasm-base64.mjs`) instead: its 2.3 MB of source and
// the 2.3 MB string it exports then stay in the heap of every process that queries, 4.6 MB each
// for as long as it runs. Read here, both are garbage once the module is compiled. The server's
// bundle points the client here (scripts/lib/prisma-compiler-import.ts); the client run from its
// sources (tests, the CLI under tsx) keeps Prisma's own import.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

/** The text between the module's first two double quotes: `const wasm = "<base64>"; export { wasm }`. */
function base64Of(source: string): string {
  const start = source.indexOf('"');
  const end = source.indexOf('"', start + 1);
  if (start < 0 || end < 0) throw new Error("Prisma's query compiler module has no quoted base64 text");
  return source.slice(start + 1, end);
}

/** The compiled query compiler of the base64 module `specifier` names (resolved as Node resolves it from here). */
export async function queryCompilerModule(specifier: string): Promise<WebAssembly.Module> {
  const file = createRequire(import.meta.url).resolve(specifier);
  return new WebAssembly.Module(Buffer.from(base64Of(await readFile(file, "latin1")), "base64"));
}
