// A spool: records appended to a file of the process's own (one write(2) each, no fsync) before
// the answer they belong to ends, committed to PostgreSQL in batches behind the answers. A
// process killed with SIGKILL loses nothing it wrote: the kernel keeps the file, and the next
// process of the gateway on this host finds the files of processes no longer running and commits
// what they hold (replay.ts). The usage ledger and the request log each keep one, told apart by
// the files' prefix.
//
// Files are named `<prefix><pid>.<start time>~<segment>.jsonl` (process-identity.ts: a pid reused
// by another process is not mistaken for the writer); a segment whose records are all committed
// is emptied (or removed, once the process has moved on to a new one).
import { closeSync, ftruncateSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { identify, type ProcessIdentity } from "../db/process-identity";

/** A segment grows to about this size before the process starts another. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

export const identityTag = (p: ProcessIdentity) => `${p.pid}.${p.startTime}`;

export class Segment {
  bytes = 0;
  /** Records written here and not yet committed. */
  pending = 0;
  sealed = false;
  constructor(
    readonly file: string,
    readonly fd: number,
  ) {}
}

export class Spool<T> {
  private current: Segment | null = null;
  private next = 0;
  private readonly tag: string;

  constructor(
    readonly dir: string,
    readonly prefix: string,
    private readonly serialize: (record: T) => string = JSON.stringify,
    owner: ProcessIdentity = identify(process.pid),
  ) {
    this.tag = identityTag(owner);
  }

  /** Writes a record down; throws when it could not (the caller then waits for its commit). */
  append(record: T): Segment {
    const segment = this.segment();
    const line = Buffer.from(`${this.serialize(record)}\n`);
    let written = 0;
    while (written < line.length) written += writeSync(segment.fd, line, written);
    segment.bytes += line.length;
    segment.pending++;
    if (segment.bytes >= SEGMENT_BYTES) {
      segment.sealed = true;
      this.current = null;
    }
    return segment;
  }

  /** A record of `segment` is in PostgreSQL. */
  committed(segment: Segment): void {
    segment.pending--;
    if (segment.pending > 0) return;
    if (segment.sealed) {
      closeSync(segment.fd);
      unlinkSync(segment.file);
    } else if (segment.bytes > 0) {
      // Everything written here is committed: start the file over (O_APPEND writes at its new end).
      ftruncateSync(segment.fd, 0);
      segment.bytes = 0;
    }
  }

  /** Closes the current segment, and removes it when nothing in it waits for a commit. */
  close(): void {
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
