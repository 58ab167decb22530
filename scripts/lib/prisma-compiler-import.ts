// The bundle's one change to the generated Prisma client: its query compiler read from the base64
// module as a file (server/infra/db/query-compiler-wasm.ts) rather than imported, 4.6 MB less of
// every gateway process's heap. Made where the generated text is exactly as expected; a Prisma
// whose generated client differs fails the build here (tests/unit/prisma-compiler-import.test.ts
// says so first), rather than losing the saving unseen.
import path from "node:path";
import { projectRoot } from "../../server/infra/paths";

/** The generated client's loader of its compiler, as Prisma 7 writes it (the specifier captured). */
const IMPORT = /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_[a-z]+_bg\.[a-z]+\.wasm-base64\.mjs)"\)\s*\n\s*return await decodeBase64AsWasm\(wasm\)/;

export const GENERATED_CLIENT = /[\\/]server[\\/]generated[\\/]prisma[\\/]internal[\\/]class\.ts$/;

const HELPER = path.join(projectRoot, "server", "infra", "db", "query-compiler-wasm.ts");

/** The generated client's source with its compiler loaded by `queryCompilerModule`; throws when the loader is not found. */
export function compilerFromFile(source: string): string {
  const found = IMPORT.exec(source);
  if (!found) throw new Error("The generated Prisma client does not load its query compiler as expected: update scripts/lib/prisma-compiler-import.ts");
  return source.replace(IMPORT, `return (await import(${JSON.stringify(HELPER)})).queryCompilerModule(${JSON.stringify(found[1])})`);
}
