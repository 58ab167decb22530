// Applies the committed migrations (prisma/migrations) with Prisma's schema engine.
import { openSchemaEngine, readMigrationList } from "./schema-engine";

export async function applyMigrations(url: string): Promise<string[]> {
  const { engine, close } = await openSchemaEngine(url);
  try {
    const out = await engine.applyMigrations({
      migrationsList: await readMigrationList(),
      filters: { externalTables: [], externalEnums: [] },
    });
    return out.appliedMigrationNames;
  } finally {
    await close();
  }
}
