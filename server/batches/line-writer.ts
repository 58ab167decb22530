// Finished lines are written in groups (every FLUSH_LINES lines or FLUSH_MS), each group with the
// batch's counts in one statement. A line is inserted once (its index is its key): the counts
// grow only by the lines this write inserted, so a line written again by a resumed attempt is
// neither counted nor costed twice. The statement goes through the write pool, as the usage it
// records does (server/infra/db/write-pool.ts): one round trip, each column one array literal,
// rather than an interactive transaction whose insert of N lines Prisma compiled for each new N.
import { pgArray } from "../infra/db/pg-array";
import { behindQueryable } from "../infra/db/write-pool";

export type FinishedLine = {
  index: number;
  customId: string;
  statusCode: number;
  requestId: string;
  body: unknown;
  error: { code: string; message: string } | null;
  /** What the ledger charged for it (USD decimal string). */
  cost: string;
};

const FLUSH_LINES = 50;
const FLUSH_MS = 200;

export class LineWriter {
  private pending: FinishedLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly batchId: string) {}

  add(line: FinishedLine): void {
    this.pending.push(line);
    if (this.pending.length >= FLUSH_LINES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes what is pending and waits for every write. */
  async close(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return;
    const group = this.pending;
    this.pending = [];
    // One write at a time, in order; a failed write fails close() (the attempt is retried, and resumes).
    this.writing = this.writing.then(() => (this.failure ? undefined : writeLines(this.batchId, group))).catch((err: unknown) => void (this.failure ??= err));
  }
}

const WRITE_LINES = `
  WITH input AS (
    SELECT * FROM unnest($2::int[], $3::text[], $4::int[], $5::text[], $6::jsonb[], $7::jsonb[], $8::numeric[])
      AS t("index", "customId", "statusCode", "requestId", "body", "error", "cost")
  ), inserted AS (
    INSERT INTO "BatchLine" ("batchId", "index", "customId", "statusCode", "requestId", "body", "error", "cost")
    SELECT $1, "index", "customId", "statusCode", "requestId", "body", "error", "cost" FROM input
    ON CONFLICT DO NOTHING
    RETURNING "statusCode", "cost"
  ), counts AS (
    SELECT count(*) FILTER (WHERE "statusCode" < 400) AS ok, count(*) FILTER (WHERE "statusCode" >= 400) AS failed, COALESCE(sum("cost"), 0) AS cost, count(*) AS n FROM inserted
  )
  UPDATE "Batch" b SET "completed" = b."completed" + c.ok, "failed" = b."failed" + c.failed, "cost" = b."cost" + c.cost
  FROM counts c WHERE b."id" = $1 AND c.n > 0`;

const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

async function writeLines(batchId: string, lines: FinishedLine[]): Promise<void> {
  await behindQueryable.$queryRawUnsafe(
    WRITE_LINES,
    batchId,
    pgArray(lines.map((l) => l.index)),
    pgArray(lines.map((l) => l.customId)),
    pgArray(lines.map((l) => l.statusCode)),
    pgArray(lines.map((l) => l.requestId)),
    pgArray(lines.map((l) => json(l.body))),
    pgArray(lines.map((l) => json(l.error))),
    pgArray(lines.map((l) => l.cost)),
  );
}
