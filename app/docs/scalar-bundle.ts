// The Scalar API reference's standalone browser bundle, read from node_modules at run time (never
// from a CDN: a gateway may have no internet), once, then kept in memory.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { projectRoot } from "@/server/infra/paths";

type Bundle = { code: Buffer; version: string };
let bundle: Bundle | undefined;

/** A package's entry file, resolved by Node at run time (a variable, so the bundler leaves it alone). */
function resolveAtRunTime(specifier: string): string {
  return createRequire(path.join(projectRoot, "package.json")).resolve(specifier);
}

export function scalarBundle(): Bundle {
  if (!bundle) {
    // The package's exports name only its entry (dist/index.js); the browser build sits beside it.
    const dist = path.dirname(resolveAtRunTime("@scalar/api-reference"));
    const pkg = JSON.parse(readFileSync(path.join(dist, "..", "package.json"), "utf8")) as { version: string };
    bundle = { code: readFileSync(path.join(dist, "browser", "standalone.js")), version: pkg.version };
  }
  return bundle;
}
