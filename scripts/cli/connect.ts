// The CLI works on the database the server uses: DATABASE_URL when set; else the embedded
// database of a gateway running on this data dir; else it starts the embedded database itself
// for the duration of the command (taking the data-dir lock so no gateway starts meanwhile).
import { disconnectDb, useDatabase } from "../../server/infra/db/client";
import { currentHolder, dataDir, lockDataDir } from "../../server/infra/db/data-dir";
import { startEmbeddedDatabase } from "../../server/infra/db/embedded";
import { applyMigrations } from "../../server/infra/db/migrate";
import { stopListening } from "../../server/infra/db/notify";
import { env } from "../../server/infra/env";

/** Closes the Prisma client and the LISTEN connection the caches of some services open. */
async function disconnect(): Promise<void> {
  await stopListening();
  await disconnectDb();
}

export async function connectForCli(): Promise<() => Promise<void>> {
  if (env.DATABASE_URL) {
    useDatabase(env.DATABASE_URL);
    return disconnect;
  }
  const holder = currentHolder();
  if (holder) {
    useDatabase(holder.databaseUrl);
    return disconnect;
  }
  const release = lockDataDir("npm run cli");
  try {
    const pg = await startEmbeddedDatabase(dataDir());
    useDatabase(pg.url);
    await applyMigrations(pg.url);
    return async () => {
      await disconnect();
      await pg.stop();
      release();
    };
  } catch (err) {
    release();
    throw err;
  }
}
