// Which background responses have a live run: each run holds a PostgreSQL advisory lock named
// after its response for as long as it runs, on a connection of its own process. A process that
// dies (even by SIGKILL) loses that connection, and PostgreSQL drops its locks at once, so the
// sweep (background.ts) tells a response whose run is gone from one still running on another
// process or instance by reading pg_locks; the table needs no column for it.
import pg from "pg";
import { databaseUrl } from "../../infra/db/client";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("responses");

/** First key of these locks, so they cannot be taken for another use of advisory locks. */
export const RUN_LOCK_SPACE = 1_650_549_614;

/** Ids of the runs of this process, and whether their lock was taken (false: another run's hash holds it). */
const held = new Map<string, boolean>();
let connection: Promise<pg.Client> | undefined;

function connect(): Promise<pg.Client> {
  connection ??= (async () => {
    const client = new pg.Client({ connectionString: databaseUrl(), keepAlive: true, application_name: "gateway-response-runs" });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      connection = undefined;
      client.end().catch(() => undefined);
      // The locks went with the connection: taken again on a new one. The sweep only fails a
      // response found without a run twice, one sweep apart, so a short outage costs no run.
      if (held.size) setTimeout(() => void relock(), 1000).unref();
    };
    client.on("error", onLost);
    client.on("end", onLost);
    await client.connect();
    return client;
  })().catch((err: unknown) => {
    connection = undefined;
    throw err;
  });
  return connection;
}

async function tryLock(client: pg.Client, id: string): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked", [RUN_LOCK_SPACE, id]);
  return rows[0]!.locked;
}

async function relock(): Promise<void> {
  try {
    const client = await connect();
    for (const id of [...held.keys()]) {
      const locked = await tryLock(client, id);
      if (held.has(id)) held.set(id, locked);
      else if (locked) await unlock(client, id); // the run ended meanwhile
    }
  } catch (err) {
    log.error({ err: (err as Error).message }, "background responses: could not take their locks again");
    if (held.size) setTimeout(() => void relock(), 5000).unref();
  }
}

/**
 * Marks a response as run by this process, until endRun. Throws when the database cannot be
 * reached: a run the sweep cannot see would be failed under it.
 */
export async function claimRun(id: string): Promise<void> {
  // Taken on a lock another response's id shares (a hash collision, or this process's own
  // re-entrant lock), the key is held by a live run all the same.
  held.set(id, await tryLock(await connect(), id));
}

async function unlock(client: pg.Client, id: string): Promise<void> {
  await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [RUN_LOCK_SPACE, id]);
}

export function endRun(id: string): void {
  const locked = held.get(id);
  held.delete(id);
  if (locked) void connection?.then((client) => unlock(client, id)).catch(() => undefined);
}
