// The o200k_base ranks for gpt-tokenizer, read from its package's `data/o200k_base.tiktoken`
// (tiktoken's own format: a token's bytes in base64 and its rank, a line each). The package's
// `bpeRanks/o200k_base.js` module holds the same array as 2.4 MB of JavaScript, whose source V8
// keeps for as long as the process runs beside the strings made from it: imported that way the
// tokenizer held 21 MB of heap, read this way 15 MB (and about 10 MB less RSS) in each process
// that counts. The array is made as the package's generator makes it (src/codegen/generateJsBpe.ts):
// a token whose bytes are UTF-8 is its string, any other its bytes; a missing rank is a hole.
// tests/unit/o200k-ranks.test.ts compares it, element by element, with the module's.
import { readFile } from "node:fs/promises";

export type Ranks = (string | number[])[];

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The token's text when its bytes are UTF-8 that encodes back to the same length, as the package decides. */
function asText(bytes: Buffer): string | undefined {
  try {
    const text = utf8.decode(bytes);
    return Buffer.byteLength(text, "utf8") === bytes.length ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The ranks of a `.tiktoken` file's text. */
export function ranksOf(tiktoken: string): Ranks {
  const ranks: Ranks = [];
  for (const line of tiktoken.split("\n")) {
    if (line === "") continue;
    const space = line.indexOf(" ");
    const rank = Number(line.slice(space + 1));
    if (space <= 0 || !Number.isInteger(rank) || rank < 0) throw new Error(`not a tiktoken rank line: ${line.slice(0, 40)}`);
    const bytes = Buffer.from(line.slice(0, space), "base64");
    ranks[rank] = asText(bytes) ?? [...bytes];
  }
  return ranks;
}

/**
 * The path of a package's file, resolved by Node at run time. `createRequire` is taken from
 * `process.getBuiltinModule` so that no bundler sees the resolution: Next's (Turbopack) bundles a
 * file it can follow and replaces one it cannot with a throw. Without it (Node before 20.16) the
 * call fails, and the caller uses the package's module instead.
 */
function resolveFile(specifier: string): string {
  const nodeModule = process.getBuiltinModule?.("node:module") as typeof import("node:module") | undefined;
  if (!nodeModule) throw new Error("process.getBuiltinModule is not available");
  return nodeModule.createRequire(import.meta.url).resolve(specifier);
}

/** o200k_base's ranks, read from the gpt-tokenizer package installed beside the gateway. */
export async function o200kRanks(): Promise<Ranks> {
  return ranksOf(await readFile(resolveFile("gpt-tokenizer/data/o200k_base.tiktoken"), "utf8"));
}
