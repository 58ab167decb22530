// Loads Prisma's WebAssembly schema engine (the same engine `prisma migrate` uses) and binds it
// to a pg driver adapter, so migrations need no native engine binary on the machine.
import { readFile, readdir } from "node:fs/promises";
import { randomUUID } from "node:crypto";
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
    const pkg = path.dirname(require.resolve("@prisma/schema-engine-wasm"));
    const bytes = await readFile(path.join(pkg, "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  })();
  return loaded;
}


type Queryable = { performIO: (q: unknown) => Promise<{ fields: { dataTypeID: number }[] }> };
const PG_CHAR = 18;
const PG_BPCHAR = 1042;

/**
 * Schema description reads catalog columns of PostgreSQL's internal `"char"` type, which the
 * pg adapter cannot map; they are read as `character` instead.
 */
function readCharAsCharacter<T extends object>(adapter: T): T {
  const q = adapter as unknown as Queryable;
  const performIO = q.performIO.bind(adapter);
  q.performIO = async (query) => {
    const result = await performIO(query);
    for (const field of result.fields) if (field.dataTypeID === PG_CHAR) field.dataTypeID = PG_BPCHAR;
    return result;
  };
  return adapter;
}

/**
 * PrismaPg's own shadow-database helper drops the database while its pool is still connected;
 * this one disconnects first and drops WITH (FORCE).
 */
function withShadowDatabase(connectionString: string) {
  const base = new PrismaPg({ connectionString });
  return {
    provider: base.provider as typeof base.provider,
    adapterName: base.adapterName,
    connect: async () => readCharAsCharacter(await base.connect()),
    connectToShadowDb: async () => {
      const admin = await base.connect();
      const name = `gateway_shadow_${randomUUID().replace(/-/g, "")}`;
      await admin.executeScript(`CREATE DATABASE "${name}"`);
      const url = new URL(connectionString);
      url.pathname = `/${name}`;
      const shadow = readCharAsCharacter(await new PrismaPg({ connectionString: url.toString() }).connect());
      const dispose = shadow.dispose.bind(shadow);
      return Object.assign(shadow, {
        dispose: async () => {
          await dispose();
          await admin.executeScript(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
          await admin.dispose();
        },
      });
    },
  };
}

export async function openSchemaEngine(connectionString: string): Promise<SchemaEngine> {
  await loadWasm();
  const schema = await readFile(schemaPath, "utf8");
  const adapter = bindMigrationAwareSqlAdapterFactory(withShadowDatabase(connectionString));
  const log = (message: string) => {
    if (process.env.SCHEMA_ENGINE_DEBUG) process.stderr.write(`[schema-engine] ${message}\n`);
  };
  return bg.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, log, adapter) as Promise<SchemaEngine>;
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
