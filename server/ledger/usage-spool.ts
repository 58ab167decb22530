// The usage spool: before a call's answer ends, its usage movement is appended to a file of the
// process's own (one write(2), no fsync), and the batched writer commits it to PostgreSQL behind
// the answer. A process killed with SIGKILL loses nothing it wrote: the kernel keeps the file,
// and the next process of the gateway on this host (a replacement worker, a restart) finds the
// files of processes no longer running and commits what they hold (spool-replay.ts). Movement
// ids make that idempotent: a movement already committed is not applied twice.
//
// What it cannot survive is the host itself going down before the kernel wrote the page out
// (about 30 s at most on Linux's defaults) or losing its disk: the same order of window as
// PostgreSQL's asynchronous commit, documented in docs/BILLING.md.
//
// Files are named `usage~<pid>.<start time>~<segment>.jsonl` (process-identity.ts: a pid reused
// by another process is not mistaken for the writer); a segment whose movements are all committed
// is emptied (or removed, once the process has moved on to a new one).
import { closeSync, ftruncateSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { formatMoney } from "../kernel/money";
import { identify, type ProcessIdentity } from "../infra/db/process-identity";
import { toStored, type Movement } from "./movements";

/** A segment grows to about this size before the process starts another. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

export const SPOOL_PREFIX = "usage~";

export const identityTag = (p: ProcessIdentity) => `${p.pid}.${p.startTime}`;

export class Segment {
  bytes = 0;
  /** Movements written here and not yet committed. */
  pending = 0;
  sealed = false;
  constructor(
    readonly file: string,
    readonly fd: number,
  ) {}
}

export class UsageSpool {
  private current: Segment | null = null;
  private next = 0;
  private readonly tag: string;

  constructor(
    readonly dir: string,
    owner: ProcessIdentity = identify(process.pid),
  ) {
    this.tag = identityTag(owner);
  }

  /** Writes a movement down; throws when it could not (the caller then waits for its commit). */
  append(movement: Movement): Segment {
    const segment = this.segment();
    const line = Buffer.from(`${JSON.stringify({ ...movement, amount: formatMoney(toStored(movement.amount)) })}\n`);
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

  /** A movement of `segment` is in PostgreSQL. */
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
    const file = path.join(this.dir, `${SPOOL_PREFIX}${this.tag}~${this.next++}.jsonl`);
    this.current = new Segment(file, openSync(file, "a", 0o600));
    return this.current;
  }
}
