// scripts/patch-prisma-runtime.mjs (run by `npm install`) keeps Prisma's parameter graph out of
// holey arrays, 12 MB less per gateway process. After an upgrade of Prisma the change may no
// longer apply: this fails then, so that the script is brought up to date (or dropped, if Prisma
// no longer builds its graph that way).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

const runtime = path.dirname(createRequire(import.meta.url).resolve("@prisma/client/runtime/client"));

describe("Prisma's client runtime, as installed", () => {
  it.each(["client.js", "client.mjs"])("%s builds both graph readers' objects in dictionary mode", (name) => {
    const text = readFileSync(path.join(runtime, name), "utf8");
    expect(text.split("o={};o[1e9]=0;delete o[1e9];/* dictionary elements:").length - 1).toBe(2);
  });
});
