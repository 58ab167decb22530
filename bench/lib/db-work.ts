// What PostgreSQL did for a row of calls: statements (pg_stat_statements: calls, rows, execution
// time, WAL), rows written per table and the index entries they made (pg_stat_user_tables: an
// insert or a non-HOT update writes one entry into every index of its table; a HOT update none).
// Counts are per 1,000 calls of the row.
import type pg from "pg";

type Statement = { query: string; calls: number; rows: number; ms: number; walBytes: number };
type Table = { inserted: number; updated: number; hot: number; deleted: number; indexes: number; entries?: number };
/** `since`: the database's clock when it was taken (UTC wall clock, as the tables keep "createdAt"). */
type Snapshot = { statements: Map<string, Statement>; tables: Map<string, Table>; since: string };

export type DbWork = {
  statementsPer1000: number;
  rowsWrittenPer1000: number;
  indexEntriesPer1000: number;
  walBytesPerCall: number;
  statements: (Statement & { id: string })[];
  tables: (Table & { name: string })[];
};

/** A backend reports its table counts when idle at most every 10 s (PGSTAT_IDLE_INTERVAL): a row waits this long after its load. */
export const STATS_SETTLE_MS = 11_000;

async function snapshot(db: pg.Client): Promise<Snapshot> {
  const s = await db.query<{ queryid: string; query: string; calls: string; rows: string; ms: number; wal: string }>(
    `SELECT queryid::text, query, calls::text, rows::text, total_exec_time AS ms, wal_bytes::text AS wal FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  const t = await db.query<{ name: string; ins: string; upd: string; hot: string; del: string; indexes: string }>(
    `SELECT c.relname AS name, s.n_tup_ins::text AS ins, s.n_tup_upd::text AS upd, s.n_tup_hot_upd::text AS hot, s.n_tup_del::text AS del,
       (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid)::text AS indexes
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`,
  );
  const now = await db.query<{ at: string }>(`SELECT (now() AT TIME ZONE 'UTC')::text AS at`);
  return {
    since: now.rows[0]!.at,
    statements: new Map(s.rows.map((r) => [r.queryid, { query: r.query, calls: Number(r.calls), rows: Number(r.rows), ms: r.ms, walBytes: Number(r.wal) }])),
    tables: new Map(t.rows.map((r) => [r.name, { inserted: Number(r.ins), updated: Number(r.upd), hot: Number(r.hot), deleted: Number(r.del), indexes: Number(r.indexes) }])),
  };
}

/** The bench's own queries (these snapshots), left out of the counts. */
const OWN = /pg_stat_statements|pg_stat_user_tables/;

/**
 * Index entries a table's new rows made: one per index, but in a partial index only for the rows
 * its predicate holds for (counted among the rows made since `from`, by their "createdAt").
 */
async function entriesOf(db: pg.Client, table: string, from: string, inserted: number, nonHot: number): Promise<number> {
  const idx = await db.query<{ pred: string | null }>(
    `SELECT pg_get_expr(i.indpred, i.indrelid) AS pred FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = $1`,
    [table],
  );
  let entries = 0;
  for (const { pred } of idx.rows) {
    if (!pred) {
      entries += inserted + nonHot;
      continue;
    }
    const r = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${table}" WHERE "createdAt" >= $1::timestamp AND (${pred})`, [from]).catch(() => null);
    entries += r ? Number(r.rows[0]!.n) : inserted + nonHot;
  }
  return entries;
}

export async function dbActivity(db: pg.Client): Promise<{ since: (before: { snap: Snapshot }, calls: number) => Promise<DbWork>; snap: Snapshot }> {
  const snap = await snapshot(db);
  return {
    snap,
    async since(before, calls) {
      const per = (n: number) => (n * 1000) / Math.max(1, calls);
      const statements: DbWork["statements"] = [];
      for (const [id, now] of snap.statements) {
        if (OWN.test(now.query)) continue;
        const was = before.snap.statements.get(id);
        const d = { query: now.query, calls: now.calls - (was?.calls ?? 0), rows: now.rows - (was?.rows ?? 0), ms: now.ms - (was?.ms ?? 0), walBytes: now.walBytes - (was?.walBytes ?? 0) };
        if (d.calls > 0) statements.push({ id, ...d, calls: per(d.calls), rows: per(d.rows), ms: per(d.ms) });
      }
      statements.sort((a, b) => b.calls - a.calls || b.ms - a.ms);
      const tables: DbWork["tables"] = [];
      for (const [name, now] of snap.tables) {
        const was = before.snap.tables.get(name) ?? { inserted: 0, updated: 0, hot: 0, deleted: 0 };
        const d = { inserted: now.inserted - was.inserted, updated: now.updated - was.updated, hot: now.hot - was.hot, deleted: now.deleted - was.deleted };
        if (!d.inserted && !d.updated && !d.deleted) continue;
        const entries = await entriesOf(db, name, before.snap.since, d.inserted, d.updated - d.hot);
        tables.push({ name, indexes: now.indexes, inserted: per(d.inserted), updated: per(d.updated), hot: per(d.hot), deleted: per(d.deleted), entries: per(entries) });
      }
      tables.sort((a, b) => b.inserted + b.updated - (a.inserted + a.updated));
      const walBytes = statements.reduce((a, s) => a + s.walBytes, 0);
      return {
        statementsPer1000: statements.reduce((a, s) => a + s.calls, 0),
        rowsWrittenPer1000: tables.reduce((a, t) => a + t.inserted + t.updated + t.deleted, 0),
        indexEntriesPer1000: tables.reduce((a, t) => a + (t.entries ?? 0), 0),
        walBytesPerCall: walBytes / Math.max(1, calls),
        statements,
        tables,
      };
    },
  };
}

/** Markdown: the statements (up to 15) and the tables written, per 1,000 calls. */
export function dbWorkTable(w: DbWork): string {
  const q = (s: string) => s.replace(/\s+/g, " ").replace(/\|/g, "\\|").slice(0, 110);
  const out = [
    `${w.statementsPer1000.toFixed(0)} statements, ${w.rowsWrittenPer1000.toFixed(0)} rows written, ${w.indexEntriesPer1000.toFixed(0)} index entries, ${Math.round(w.walBytesPerCall)} WAL bytes per call.`,
    "",
    "| statement | calls / 1k | rows / 1k | exec ms / 1k |",
    "|---|---|---|---|",
    ...w.statements.slice(0, 15).map((s) => `| \`${q(s.query)}\` | ${s.calls.toFixed(1)} | ${s.rows.toFixed(1)} | ${s.ms.toFixed(1)} |`),
    "",
    "| table | indexes | inserted / 1k | updated / 1k (HOT) | deleted / 1k | index entries / 1k |",
    "|---|---|---|---|---|---|",
    ...w.tables.map((t) => `| ${t.name} | ${t.indexes} | ${t.inserted.toFixed(1)} | ${t.updated.toFixed(1)} (${t.hot.toFixed(1)}) | ${t.deleted.toFixed(1)} | ${(t.entries ?? 0).toFixed(0)} |`),
  ];
  return out.join("\n");
}
