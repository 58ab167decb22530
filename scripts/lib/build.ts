// "Builds when needed": the Next.js build is redone when the sources it was made from changed,
// and the gateway's own server is bundled into one file beside it (esbuild, in well under a second).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { projectRoot } from "../../server/infra/paths";
import { compilerFromFile, GENERATED_CLIENT } from "./prisma-compiler-import";

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

/** Where the bundled gateway server of a build lives. */
export function serverBundle(distDir: string): string {
  return path.join(projectRoot, distDir, "gateway", "gateway-server.mjs");
}

/**
 * Bundles server/transport/node/gateway-server.ts and the server modules it loads into ES modules
 * (packages stay in node_modules). The gateway's processes then run plain JavaScript: no
 * TypeScript loader, no second copy of every module transformed in memory at run time. What the
 * server imports lazily is a chunk of its own (Next.js, loaded by the first request for the
 * dashboard).
 */
async function bundleServer(distDir: string): Promise<void> {
  await bundle("gateway-server", path.join(projectRoot, "server", "transport", "node", "gateway-server.ts"), path.dirname(serverBundle(distDir)));
}

/** Where the bundled admin CLI of a build lives (the test run's, see bundleCli). */
export function cliBundle(distDir: string): string {
  return path.join(projectRoot, distDir, "cli", "cli.mjs");
}

/**
 * Bundles the admin CLI (scripts/cli.ts) as the server is bundled: the tests start it dozens of
 * times, and through the TypeScript loader each start took 3-5 s of CPU on a loaded host.
 */
export async function bundleCli(distDir: string): Promise<string> {
  const entry = cliBundle(distDir);
  await bundle("cli", path.join(projectRoot, "scripts", "cli.ts"), path.dirname(entry));
  return entry;
}

/** The generated Prisma client, its query compiler read as a file (scripts/lib/prisma-compiler-import.ts). */
const prismaCompilerFromFile: Plugin = {
  name: "prisma-compiler-from-file",
  setup(b) {
    b.onLoad({ filter: GENERATED_CLIENT }, async (args) => ({ contents: compilerFromFile(await readFile(args.path, "utf8")), loader: "ts" }));
  },
};

/** One entry point and what it imports, as ES modules in `outdir`; files are rewritten only when they changed, the entry last, by rename. */
async function bundle(name: string, entryPoint: string, outdir: string): Promise<void> {
  const entry = path.join(outdir, `${name}.mjs`);
  const result = await build({
    entryPoints: { [name]: entryPoint },
    outdir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunk-[hash]",
    bundle: true,
    splitting: true,
    write: false,
    platform: "node",
    format: "esm",
    target: `node${process.versions.node.split(".")[0]}`,
    packages: "external",
    alias: { "@": projectRoot },
    plugins: [prismaCompilerFromFile],
    sourcemap: "linked", // read only when the process runs with --enable-source-maps
    logLevel: "error",
  });
  mkdirSync(outdir, { recursive: true });
  const written = new Set<string>();
  const files = [...result.outputFiles].sort((a, b) => Number(a.path === entry) - Number(b.path === entry));
  for (const file of files) {
    written.add(path.basename(file.path));
    if (existsSync(file.path) && readFileSync(file.path).equals(file.contents)) continue;
    const tmp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, file.path);
  }
  for (const existing of readdirSync(outdir)) if (!written.has(existing) && !existing.endsWith(".tmp")) rmSync(path.join(outdir, existing), { force: true });
}

/** Runs `next build` into distDir unless a build of the same sources is already there, then bundles the server. */
export async function ensureBuilt(distDir: string, log: (line: string) => void): Promise<void> {
  await ensureNextBuilt(distDir, log);
  await bundleServer(distDir);
}

async function ensureNextBuilt(distDir: string, log: (line: string) => void): Promise<void> {
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
