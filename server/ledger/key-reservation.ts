// Video and fine-tuning jobs hold money from the moment they are created, so a key's spend limit
// must count what its open jobs hold, not only what it has been charged: otherwise a key at $0 of
// a $1 limit could queue any number of $5 jobs. The key's row is locked for the check, so concurrent creates with
// one key are checked one after the other.
import type { Tx } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { money } from "../kernel/money";

export async function assertKeyCanReserve(tx: Tx, keyId: string, amount: string): Promise<void> {
  const [row] = await tx.$queryRaw<{ spendLimit: string | null; spent: string; held: string }[]>`
    SELECT k."spendLimit"::text AS "spendLimit", k."spent"::text AS spent,
      (COALESCE((SELECT SUM(j."reservedAmount") FROM "VideoJob" j
                WHERE j."apiKeyId" = k."id" AND j."status" IN ('queued', 'in_progress')), 0)
      + COALESCE((SELECT SUM(f."reservedAmount") FROM "FineTuningJob" f
                WHERE f."apiKeyId" = k."id" AND f."status" IN ('validating_files', 'queued', 'running', 'paused')), 0))::text AS held
    FROM "ApiKey" k WHERE k."id" = ${keyId} FOR UPDATE`;
  if (!row || row.spendLimit === null) return;
  if (money(row.spent).plus(row.held).plus(amount).gt(row.spendLimit)) {
    throw errors.keySpendLimitReached(
      `This job can cost up to ${amount} USD, which with what this API key has spent (${row.spent}) and holds for open jobs (${row.held}) would pass its spend limit of ${row.spendLimit} USD.`,
    );
  }
}
