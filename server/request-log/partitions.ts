// The request log's partitions (its rows', and its captured bodies'): one per UTC day, made a week ahead, and dropped whole once past
// LOG_RETENTION_DAYS, so removing old rows is a DROP TABLE, not a DELETE over millions of rows.
// A row no day's partition takes lands in the default partition; should a day be made after
// such rows arrived, they are moved into it first. Safe to run from several instances at once
// (IF NOT EXISTS, and one transaction per change).
import { db } from "../infra/db/client";
import { env } from "../infra/env";
import { logFor } from "../infra/telemetry/log";

const log = logFor("request-log");
const DAY_MS = 86_400_000;
const AHEAD_DAYS = 7;
/** The tables partitioned by day, each with its `<table>_default` partition. */
const TABLES = ["RequestLog", "RequestLogBody"] as const;
type Table = (typeof TABLES)[number];

const dayStart = (t: number) => new Date(Math.floor(t / DAY_MS) * DAY_MS);
const iso = (d: Date) => d.toISOString().slice(0, 10);
const partitionName = (table: Table, d: Date) => `${table}_${iso(d).replaceAll("-", "")}`;

async function existing(table: Table): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = $1`,
    table,
  );
  return rows.map((r) => r.name);
}

async function createDay(table: Table, day: Date): Promise<void> {
  const name = partitionName(table, day);
  const from = iso(day);
  const to = iso(new Date(day.getTime() + DAY_MS));
  try {
    await db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF "${table}" FOR VALUES FROM ('${from}') TO ('${to}')`);
  } catch {
    // The default partition holds rows of that day: move them into the new day's table, then attach it.
    await db.$transaction([
      db.$executeRawUnsafe(`CREATE TABLE "${name}" (LIKE "${table}" INCLUDING DEFAULTS)`),
      db.$executeRawUnsafe(`INSERT INTO "${name}" SELECT * FROM "${table}_default" WHERE "createdAt" >= '${from}' AND "createdAt" < '${to}'`),
      db.$executeRawUnsafe(`DELETE FROM "${table}_default" WHERE "createdAt" >= '${from}' AND "createdAt" < '${to}'`),
      db.$executeRawUnsafe(`ALTER TABLE "${table}" ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`),
    ]);
  }
}

/** Makes the partitions from yesterday to a week ahead, drops those past retention; returns the days dropped. */
export async function maintainPartitions(now = Date.now(), retentionDays = env.LOG_RETENTION_DAYS): Promise<string[]> {
  const dropped: string[] = [];
  for (const table of TABLES) dropped.push(...(await maintainTable(table, now, retentionDays)));
  if (dropped.length) log.info({ dropped }, "request log: days past retention dropped");
  return dropped;
}

async function maintainTable(table: Table, now: number, retentionDays: number): Promise<string[]> {
  const have = new Set(await existing(table));
  for (let d = -1; d <= AHEAD_DAYS; d++) {
    const day = dayStart(now + d * DAY_MS);
    if (!have.has(partitionName(table, day))) await createDay(table, day);
  }
  const cutoff = dayStart(now - retentionDays * DAY_MS);
  const dropped: string[] = [];
  const named = new RegExp(`^${table}_(\\d{4})(\\d{2})(\\d{2})$`);
  for (const name of have) {
    const m = named.exec(name);
    if (!m) continue;
    const day = new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`);
    // A day is dropped once all of it is older than the retention.
    if (day.getTime() + DAY_MS <= cutoff.getTime()) {
      await db.$executeRawUnsafe(`DROP TABLE IF EXISTS "${name}"`);
      dropped.push(name);
    }
  }
  await db.$executeRawUnsafe(`DELETE FROM "${table}_default" WHERE "createdAt" < '${cutoff.toISOString()}'`);
  return dropped;
}
