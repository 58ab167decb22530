// The server's bundle loads Prisma's query compiler from its base64 module read as a file, so the
// module's text does not stay in every process's heap (scripts/lib/prisma-compiler-import.ts).
// This fails after a Prisma upgrade that generates the client's loader differently, and checks
// that the compiler read this way is the one Prisma's own import gives.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compilerFromFile } from "../../scripts/lib/prisma-compiler-import";
import { queryCompilerModule } from "../../server/infra/db/query-compiler-wasm";
import { projectRoot } from "../../server/infra/paths";

const generated = readFileSync(path.join(projectRoot, "server/generated/prisma/internal/class.ts"), "utf8");
const SPECIFIER = /query_compiler_[a-z]+_bg\.postgresql\.wasm-base64\.mjs/.exec(generated)?.[0];

describe("the bundle's Prisma query compiler", () => {
  it("finds the generated client's loader and points it at the file reader", () => {
    expect(SPECIFIER).toBeDefined();
    const rewritten = compilerFromFile(generated);
    expect(rewritten).toContain(`.queryCompilerModule("@prisma/client/runtime/${SPECIFIER}")`);
    expect(rewritten).not.toContain("decodeBase64AsWasm(wasm)");
    expect(rewritten).not.toMatch(/import\("@prisma\/client\/runtime\/[^"]+wasm-base64/);
    // Nothing else of the client changes.
    expect(rewritten.replace(/getQueryCompilerWasmModule[\s\S]*?\n  \},/, "")).toBe(generated.replace(/getQueryCompilerWasmModule[\s\S]*?\n  \},/, ""));
  });

  it("refuses a client whose loader it does not recognise, rather than leaving it as it is", () => {
    expect(() => compilerFromFile(generated.replace("decodeBase64AsWasm(wasm)", "somethingElse(wasm)"))).toThrow(/update scripts\/lib\/prisma-compiler-import\.ts/);
  });

  it("compiles the same module as Prisma's own import", async () => {
    const specifier = `@prisma/client/runtime/${SPECIFIER}`;
    const { wasm } = (await import(specifier)) as { wasm: string };
    const theirs = new WebAssembly.Module(Buffer.from(wasm, "base64"));
    const ours = await queryCompilerModule(specifier);
    expect(WebAssembly.Module.exports(ours)).toEqual(WebAssembly.Module.exports(theirs));
    expect(WebAssembly.Module.imports(ours)).toEqual(WebAssembly.Module.imports(theirs));
    expect(WebAssembly.Module.exports(ours).length).toBeGreaterThan(5);
  });
});
