// Checks shared by the ledger's tests.
import { expect } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney } from "../../server/kernel/money";

export const balanceOf = async (id: string) => formatMoney((await db.workspace.findUniqueOrThrow({ where: { id } })).balance);

/** Balance == sum of the workspace's movements; each key's spent == its usage charges; events and entries match their movements. */
export async function expectLedgerInvariant(workspaceId: string): Promise<void> {
  const [w] = await db.$queryRaw<{ balance: string; movements: string; events: string; usage: string; entries: string; credits: string }[]>`
    SELECT w."balance"::text AS balance,
      (SELECT COALESCE(SUM("amount"), 0) FROM "BalanceMovement" WHERE "workspaceId" = w."id")::text AS movements,
      (SELECT COALESCE(SUM("cost"), 0) FROM "UsageEvent" WHERE "workspaceId" = w."id")::text AS events,
      (SELECT COALESCE(-SUM("amount"), 0) FROM "BalanceMovement" WHERE "workspaceId" = w."id" AND "kind" = 'usage')::text AS usage,
      (SELECT COALESCE(SUM("amount"), 0) FROM "CreditLedgerEntry" WHERE "workspaceId" = w."id")::text AS entries,
      (SELECT COALESCE(SUM("amount"), 0) FROM "BalanceMovement" WHERE "workspaceId" = w."id" AND "kind" IN ('credit', 'adjustment'))::text AS credits
    FROM "Workspace" w WHERE w."id" = ${workspaceId}`;
  expect(formatMoney(w!.balance)).toBe(formatMoney(w!.movements));
  expect(formatMoney(w!.events)).toBe(formatMoney(w!.usage));
  expect(formatMoney(w!.entries)).toBe(formatMoney(w!.credits));
  const keys = await db.$queryRaw<{ id: string; spent: string; usage: string }[]>`
    SELECT k."id", k."spent"::text AS spent,
      (SELECT COALESCE(-SUM("amount"), 0) FROM "BalanceMovement" WHERE "apiKeyId" = k."id" AND "kind" = 'usage')::text AS usage
    FROM "ApiKey" k WHERE k."workspaceId" = ${workspaceId}`;
  for (const k of keys) expect(formatMoney(k.spent), `spent of ${k.id}`).toBe(formatMoney(k.usage));
}

