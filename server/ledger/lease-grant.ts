// Granting a credit lease (see credit-leases.ts): one transaction that locks the workspace's row,
// then sets this instance's lease from what the other instances' leases leave of the balance.
import type { Tx } from "../infra/db/client";
import { Channel } from "../infra/db/notify";
import { formatMoney, type Money } from "../kernel/money";

/**
 * Run with the workspace's row locked: sets the lease of instance $2 on workspace $1 to at most
 * `free`, the balance minus the other instances' unexpired leases, so that all leases together never
 * exceed the balance:
 *   free >= $4 (min): min, plus up to $5 (want) - min, but at most half of what else is free;
 *   otherwise:        $3 (keep), or less if even that is no longer free.
 * Expires $6 ms after it was set (the clock's time, later than the transaction's start, so the
 * instance's own deadline, counted from before it asked, is always earlier), unless set again.
 * Other leases count until their expiry passes the transaction's start (so a little longer).
 * A lease that shrank is announced on Channel.balanceChanged.
 * Leases of instances long gone (expired ten minutes ago) are removed.
 */
const LEASE_SQL = `
  WITH others AS (
    SELECT COALESCE(SUM(GREATEST("amount", 0)), 0) AS amount FROM "CreditLease"
    WHERE "workspaceId" = $1 AND "instanceId" <> $2 AND "expiresAt" > now()
  ), old AS (
    SELECT "amount" FROM "CreditLease" WHERE "workspaceId" = $1 AND "instanceId" = $2
  ), free AS (
    SELECT GREATEST(w."balance" - o."amount", 0) AS amount FROM "Workspace" w, others o WHERE w."id" = $1
  ), granted AS (
    SELECT f."amount" AS free,
      CASE WHEN f."amount" >= $4::numeric
        THEN $4::numeric + LEAST(GREATEST($5::numeric - $4::numeric, 0), trunc((f."amount" - $4::numeric) / 2, 18))
        ELSE LEAST(f."amount", $3::numeric) END AS amount
    FROM free f
  ), upserted AS (
    INSERT INTO "CreditLease" ("workspaceId", "instanceId", "amount", "expiresAt")
    SELECT $1, $2, g."amount", clock_timestamp() + $6::int * interval '1 millisecond' FROM granted g
    WHERE g."amount" > 0 OR EXISTS (SELECT 1 FROM old)
    ON CONFLICT ("workspaceId", "instanceId") DO UPDATE
      SET "amount" = EXCLUDED."amount", "expiresAt" = EXCLUDED."expiresAt", "version" = nextval('"CreditLease_version_seq"')
    RETURNING "amount", "version"
  ), gone AS (
    DELETE FROM "CreditLease" WHERE "workspaceId" = $1 AND "instanceId" <> $2 AND "expiresAt" < now() - interval '10 minutes'
  ), notified AS (
    SELECT pg_notify('${Channel.balanceChanged}', $1) FROM granted g, old WHERE g."amount" < old."amount"
  )
  SELECT COALESCE(u."amount", 0)::text AS amount, COALESCE(u."version", 0) AS version, g."free"::text AS free,
    (SELECT COUNT(*) FROM notified) AS notified
  FROM granted g LEFT JOIN upserted u ON true`;

export type LeaseAnswer = { amount: string; version: bigint; free: string };

/** What the instance asks for: keep (at least, if still free), min (what makes the call possible), want (with headroom). */
export type LeaseRequest = { keep: Money; min: Money; want: Money };

/** Sets an instance's lease; undefined when the workspace does not exist. Run inside a transaction. */
export async function grantLease(tx: Tx, workspaceId: string, instanceId: string, p: LeaseRequest, ttlMs: number): Promise<LeaseAnswer | undefined> {
  // The workspace's row lock serialises this with every grant of its leases and every change of its
  // balance (they all update the row). The next statement's snapshot is taken after the lock, so
  // it sees every lease granted before.
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Workspace" WHERE "id" = ${workspaceId} FOR UPDATE`;
  if (!locked.length) return undefined;
  const [row] = await tx.$queryRawUnsafe<LeaseAnswer[]>(
    LEASE_SQL, workspaceId, instanceId, formatMoney(p.keep), formatMoney(p.min), formatMoney(p.want), ttlMs,
  );
  return row;
}
