// Loads Prisma's WebAssembly schema engine (the same engine `prisma migrate` uses) and binds it
// to a pg driver adapter, so migrations need no native engine binary on the machine.
import { readFile, readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import * as bg from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm";
import { migrationsDir, schemaPath } from "../paths";

const require = createRequire(import.meta.url);
let loaded: Promise<void> | undefined;

function loadWasm(): Promise<void> {
  loaded ??= (async () => {
    // The engine reports a Rust panic's message through this global before throwing.
    (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message: string) => process.stderr.write(`schema engine panic: ${message}\n`),
    };
    const pkg = path.dirname(require.resolve("@prisma/schema-engine-wasm"));
    const bytes = await readFile(path.join(pkg, "schema_engine_bg.wasm"));
    // The engine's internal timers must not keep a finished process alive.
    const imports: Record<string, unknown> = { ...bg };
    for (const name of Object.keys(bg).filter((n) => n.startsWith("__wbg_setTimeout_"))) {
      const original = (bg as unknown as Record<string, (f: () => void, ms: number) => NodeJS.Timeout>)[name]!;
      imports[name] = (f: () => void, ms: number) => original(f, ms).unref();
    }
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": imports as WebAssembly.ModuleImports });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  })();
  return loaded;
}


/** A pg adapter factory that remembers the pools it opened, so they can all be ended. */
function trackedAdapter(connectionString: string, opened: { dispose: () => Promise<void> }[]) {
  const base = new PrismaPg({ connectionString });
  return {
    provider: base.provider as typeof base.provider,
    adapterName: base.adapterName,
    connect: async () => {
      const adapter = await base.connect();
      opened.push(adapter);
      return adapter;
    },
    connectToShadowDb: async () => {
      const adapter = await base.connectToShadowDb();
      opened.push(adapter);
      return adapter;
    },
  };
}

export type OpenEngine = { engine: SchemaEngine; close: () => Promise<void> };

/** The engine and a close() that frees it and ends the connection pools it opened. */
export async function openSchemaEngine(connectionString: string): Promise<OpenEngine> {
  await loadWasm();
  const schema = await readFile(schemaPath, "utf8");
  const opened: { dispose: () => Promise<void> }[] = [];
  const adapter = bindMigrationAwareSqlAdapterFactory(trackedAdapter(connectionString, opened));
  const log = () => undefined; // the engine's debug log; failures still arrive as errors
  const engine = (await bg.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, log, adapter)) as SchemaEngine;
  return {
    engine,
    close: async () => {
      engine.free();
      await Promise.all(opened.map((a) => a.dispose().catch(() => undefined)));
    },
  };
}

/** The committed migrations folder in the shape the engine expects. */
export async function readMigrationList(): Promise<MigrationList> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const migrationDirectories = await Promise.all(
    dirs.map(async (dir) => ({
      path: dir,
      migrationFile: {
        path: "migration.sql",
        content: await readFile(path.join(migrationsDir, dir, "migration.sql"), "utf8").then(
          (value) => ({ tag: "ok" as const, value }),
          (err: Error) => ({ tag: "error" as const, value: err.message }),
        ),
      },
    })),
  );
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: await readFile(lockPath, "utf8").catch(() => null) },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}
