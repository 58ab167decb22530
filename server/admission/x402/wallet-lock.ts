// One transaction at a time per facilitator wallet, across every process and instance sharing
// it: a wallet's transactions are numbered (its nonce), and two processes numbering them from
// their own memory would give two the same number, one of which the chain drops. Under this lock
// the next transaction is prepared (viem reads the wallet's pending count) and sent; it is held
// until the chain has the transaction, not until it is mined. In a process, callers queue in
// memory first, so a process holds at most one database connection for it.
import { db } from "../../infra/db/client";

const tails = new Map<string, Promise<unknown>>();

export function underWalletLock<T>(address: string, send: () => Promise<T>): Promise<T> {
  const key = `x402 wallet ${address.toLowerCase()}`;
  const run = (tails.get(key) ?? Promise.resolve()).then(() =>
    db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
        return send();
      },
      { maxWait: 10_000, timeout: 30_000 },
    ),
  );
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
