// "Builds when needed": the Next.js build is redone when the sources it was made from changed.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { projectRoot } from "../../server/infra/paths";

const SOURCES = ["app", "server", "public", "instrumentation.ts", "next.config.mjs", "package.json", "package-lock.json", "tsconfig.json", "postcss.config.mjs"];
const SKIP = new Set(["node_modules", ".next", "generated"]);

function walk(p: string, hash: ReturnType<typeof createHash>): void {
  if (!existsSync(p)) return;
  const stat = statSync(p);
  if (stat.isDirectory()) {
    for (const name of readdirSync(p).sort()) if (!SKIP.has(name)) walk(path.join(p, name), hash);
  } else {
    hash.update(path.relative(projectRoot, p)).update("\0").update(readFileSync(p)).update("\0");
  }
}

export function sourceHash(): string {
  const hash = createHash("sha256");
  for (const s of SOURCES) walk(path.join(projectRoot, s), hash);
  hash.update(readFileSync(path.join(projectRoot, "prisma/schema.prisma")));
  return hash.digest("hex");
}

export function nextBin(): string {
  return createRequire(import.meta.url).resolve("next/dist/bin/next");
}

/** Runs `next build` into distDir unless a build of the same sources is already there. */
export async function ensureBuilt(distDir: string, log: (line: string) => void): Promise<void> {
  const abs = path.join(projectRoot, distDir);
  const stamp = path.join(abs, "source-hash");
  const hash = sourceHash();
  if (existsSync(path.join(abs, "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return;
  log(`Building the gateway (next build into ${distDir})...`);
  // Asynchronous, so a Ctrl-C during the build is handled (the build is a child: it stops too).
  const build = spawn(process.execPath, [nextBin(), "build"], {
    cwd: projectRoot,
    stdio: ["ignore", 2, 2], // build logs go to stderr, leaving stdout to what the caller prints
    env: { ...process.env, NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1" },
  });
  const status = await new Promise<number | null>((resolve) => build.once("exit", (code) => resolve(code)));
  if (status !== 0) throw new Error(`next build failed (exit ${status})`);
  // Hashed again after the build: `next build` itself may add its type folder to tsconfig.json,
  // which must not make the next start think the sources changed.
  writeFileSync(stamp, sourceHash());
}
