// The frames of an event stream produced in one turn of the event loop (the events of one read
// from the node) go out as one chunk at the end of the turn: one chunk-size line and one socket
// write for all of them, instead of node:http's write path for each. A stream's last frames and
// its end are one write too.
import type { ServerResponse } from "node:http";

/** Resolves true once the socket can take more, false when the client left first. */
export function whenDrained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.once("drain", onDrain);
    res.once("close", onClose);
  });
}

const flushBatch = (batch: FrameBatch) => batch.flush();

export class FrameBatch {
  private pending: string[] = [];
  /** Set while the socket is full: resolves once it drained (false: the client left). */
  private full: Promise<boolean> | null = null;

  constructor(private readonly res: ServerResponse) {}

  /** Queues a frame. false: the client left; a promise: the socket is full, wait for it. */
  add(frame: string): Promise<boolean> | boolean {
    if (this.res.destroyed) return false;
    if (this.pending.length === 0) process.nextTick(flushBatch, this);
    this.pending.push(frame);
    return this.full ?? true;
  }

  /** Writes what is queued. */
  flush(): void {
    if (this.pending.length === 0) return;
    const chunk = this.pending.join("");
    this.pending = [];
    if (this.res.destroyed) return;
    if (!this.res.write(chunk) && !this.full) {
      this.full = whenDrained(this.res).then((ok) => {
        this.full = null;
        return ok;
      });
    }
  }

  /** Ends the response with what is queued, then `last`. */
  end(last?: Buffer): void {
    const queued = this.pending.join("");
    this.pending = [];
    if (this.res.destroyed) return;
    if (!queued) this.res.end(last);
    else this.res.end(last ? Buffer.concat([Buffer.from(queued), last]) : queued);
  }
}
