// Finished lines are written in groups (every FLUSH_LINES lines or FLUSH_MS), each group with the
// batch's counts in one transaction. A line is inserted once (its index is its key): the counts
// grow only by the lines this write inserted, so a line written again by a resumed attempt is
// neither counted nor costed twice.
import type { Prisma } from "../generated/prisma/client";
import { db } from "../infra/db/client";
import { money, Money } from "../kernel/money";

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

async function writeLines(batchId: string, lines: FinishedLine[]): Promise<void> {
  await db.$transaction(async (tx) => {
    const inserted = await tx.batchLine.createManyAndReturn({
      data: lines.map((l) => ({
        batchId,
        index: l.index,
        customId: l.customId,
        statusCode: l.statusCode,
        requestId: l.requestId,
        body: (l.body ?? undefined) as Prisma.InputJsonValue | undefined,
        error: (l.error ?? undefined) as Prisma.InputJsonValue | undefined,
        cost: l.cost,
      })),
      skipDuplicates: true,
      select: { statusCode: true, cost: true },
    });
    if (!inserted.length) return;
    const ok = inserted.filter((l) => l.statusCode < 400).length;
    const cost = inserted.reduce((sum, l) => sum.plus(money(l.cost.toString())), new Money(0));
    await tx.batch.update({ where: { id: batchId }, data: { completed: { increment: ok }, failed: { increment: inserted.length - ok }, cost: { increment: cost.toFixed() } } });
  });
}
