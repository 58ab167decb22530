// A spool: records appended to a file of the process's own (one write(2) each, no fsync) before
// the answer they belong to ends, committed to PostgreSQL in batches behind the answers. A
// process killed with SIGKILL loses nothing it wrote: the kernel keeps the file, and the next
// process of the gateway on this host finds the files of processes no longer running and commits
// what they hold (replay.ts). The usage ledger and the request log each keep one, told apart by
// the files' prefix.
//
// Lines are written together: an append is serialised at once and goes out with every other line
// appended in the same turn of the event loop, in one write(2) per segment, right after that turn's
// I/O callbacks (setImmediate). A line that comes alone (the spool wrote nothing for ALONE_MS) is
// written at once instead: under a light load no other line joins it, and the turn's wait would
// only delay its answer. A caller that must know its line is down before it answers (the usage
// ledger, the request log's rows) waits for `written`.
//
// Files are named `<prefix><pid>.<start time>~<segment>.jsonl` (process-identity.ts: a pid reused
// by another process is not mistaken for the writer); a segment whose records are all committed
// is emptied (or removed, once the process has moved on to a new one).
import { closeSync, ftruncateSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { identify, type ProcessIdentity } from "../db/process-identity";

/** A segment grows to about this size before the process starts another. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

/** A line appended this long after the spool's last write is written at once, not with its turn. */
export const ALONE_MS = 1;

const WRITTEN = Promise.resolve();

export const identityTag = (p: ProcessIdentity) => `${p.pid}.${p.startTime}`;

export class Segment {
  bytes = 0;
  /** Records written here (or waiting for this turn's write) and not yet committed. */
  pending = 0;
  sealed = false;
  /** Lines appended this turn, not yet written. */
  lines: Buffer[] = [];
  constructor(
    readonly file: string,
    readonly fd: number,
  ) {}
}

/** What an append waits for: its line written (or the write's failure, its line then lost to the file). */
export type Appended = { segment: Segment; written: Promise<void> };

export class Spool<T> {
  private current: Segment | null = null;
  private next = 0;
  private readonly tag: string;
  /** Segments with lines waiting for this turn's write, and the promise those lines' appends wait for. */
  private waiting: Segment[] = [];
  private turn: { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void } | null = null;
  /** When the spool last wrote (performance.now()). */
  private lastWrite = -Infinity;

  constructor(
    readonly dir: string,
    readonly prefix: string,
    private readonly serialize: (record: T) => string = JSON.stringify,
    owner: ProcessIdentity = identify(process.pid),
    private readonly aloneMs = ALONE_MS,
  ) {
    this.tag = identityTag(owner);
  }

  /** Writes a record down now (with the lines waiting for this turn); throws when it could not (the caller then waits for its commit). */
  append(record: T): Segment {
    const segment = this.queue(record);
    const failure = this.writeWaiting();
    if (failure) throw failure;
    return segment;
  }

  /**
   * Queues a record for this turn's write (or writes it at once when it comes alone). Throws when
   * its segment cannot be opened; `written` rejects when the write failed (the record is then not
   * in the file, and not pending in it).
   */
  appendSoon(record: T): Appended {
    const segment = this.queue(record);
    if (!this.turn && performance.now() - this.lastWrite >= this.aloneMs) {
      const failure = this.writeLines();
      if (!failure) return { segment, written: WRITTEN };
      const written = Promise.reject(failure);
      written.catch(() => undefined); // a caller that does not wait is told nothing
      return { segment, written };
    }
    if (!this.turn) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      promise.catch(() => undefined); // a caller that does not wait is told nothing
      this.turn = { promise, resolve, reject };
      setImmediate(() => this.writeWaiting());
    }
    return { segment, written: this.turn.promise };
  }

  /** The record's line, serialised and waiting in its segment for the next write. */
  private queue(record: T): Segment {
    const segment = this.segment();
    const line = Buffer.from(`${this.serialize(record)}\n`);
    segment.lines.push(line);
    segment.bytes += line.length;
    segment.pending++;
    if (segment.bytes >= SEGMENT_BYTES) {
      segment.sealed = true;
      this.current = null;
    }
    if (segment.lines.length === 1) this.waiting.push(segment);
    return segment;
  }

  /** Writes every line waiting and tells the turn's appenders (if a turn waits); returns the failure, if a write failed. */
  private writeWaiting(): unknown {
    const turn = this.turn;
    this.turn = null;
    const failure = this.writeLines();
    if (failure) turn?.reject(failure);
    else turn?.resolve();
    return failure;
  }

  /** Writes every line waiting, one write(2) per segment; returns the failure, if a write failed. */
  private writeLines(): unknown {
    const segments = this.waiting.splice(0);
    if (!segments.length) return null;
    this.lastWrite = performance.now();
    let failure: unknown = null;
    for (const segment of segments) {
      const lines = segment.lines;
      segment.lines = [];
      const block = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
      try {
        let written = 0;
        while (written < block.length) written += writeSync(segment.fd, block, written);
      } catch (err) {
        // Those lines are not in the file: they no longer wait for a commit there.
        failure = err;
        segment.pending -= lines.length;
        segment.bytes -= block.length;
        if (segment.sealed && segment.pending === 0) this.retire(segment);
      }
    }
    return failure;
  }

  /** A record of `segment` is in PostgreSQL. */
  committed(segment: Segment): void {
    segment.pending--;
    if (segment.pending > 0) return;
    if (segment.sealed) {
      this.retire(segment);
    } else if (segment.bytes > 0) {
      // Everything written here is committed: start the file over (O_APPEND writes at its new end).
      ftruncateSync(segment.fd, 0);
      segment.bytes = 0;
    }
  }

  /** A sealed segment with nothing left to commit: closed and removed. */
  private retire(segment: Segment): void {
    closeSync(segment.fd);
    unlinkSync(segment.file);
  }

  /** Closes the current segment, and removes it when nothing in it waits for a commit. */
  close(): void {
    this.writeWaiting();
    const segment = this.current;
    if (!segment) return;
    this.current = null;
    closeSync(segment.fd);
    if (segment.pending === 0) unlinkSync(segment.file);
  }

  private segment(): Segment {
    if (this.current) return this.current;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, `${this.prefix}${this.tag}~${this.next++}.jsonl`);
    this.current = new Segment(file, openSync(file, "a", 0o600));
    return this.current;
  }
}
