// The usage spool: before a call's answer ends, its usage movement is appended to a file of the
// process's own, and the batched writer commits it to PostgreSQL behind the answer; a process
// killed with SIGKILL loses nothing it wrote (infra/spool/spool.ts; spool-replay.ts commits what
// stopped processes left). Movement ids make the replay idempotent.
//
// What it cannot survive is the host itself going down before the kernel wrote the page out
// (about 30 s at most on Linux's defaults) or losing its disk: the same order of window as
// PostgreSQL's asynchronous commit, documented in docs/BILLING.md.
import type { ProcessIdentity } from "../infra/db/process-identity";
import { Spool } from "../infra/spool/spool";
import { formatMoney } from "../kernel/money";
import { toStored, type Movement } from "./movements";

export { identityTag, Segment, type Appended } from "../infra/spool/spool";

export const SPOOL_PREFIX = "usage~";

export class UsageSpool extends Spool<Movement> {
  constructor(dir: string, owner?: ProcessIdentity) {
    super(dir, SPOOL_PREFIX, (m) => JSON.stringify({ ...m, amount: formatMoney(toStored(m.amount)) }), owner);
  }
}
