import { z } from "zod";
import { recordAudit, type AuditActor } from "../audit/record";
import { db, type Tx } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { newId } from "../kernel/ids";
import { DECIMAL_STRING, formatMoney, money, ZCreditAmount } from "../kernel/money";
import { applyMovements } from "./movements";

export const ZAddCreditsInput = z.object({
  workspaceId: z.string().min(1),
  amount: ZCreditAmount.refine((v) => !DECIMAL_STRING.test(v) || money(v).gt(0), "must be greater than zero"),
  note: z.string().max(500).optional(),
  createdById: z.string().optional(),
});
export type AddCreditsInput = z.input<typeof ZAddCreditsInput>;

/** The workspace after the credit, its balance as a decimal string. */
export type CreditedWorkspace = { id: string; name: string; balance: string; createdAt: string };

/**
 * Records the credit in the ledger and raises the balance by exactly that amount, in one movement
 * (movements.ts). Other instances hear of it over NOTIFY when the transaction commits, so a
 * workspace they refused for lack of credit is admitted again at once.
 */
export async function addCreditsTx(tx: Tx, input: AddCreditsInput, actor?: AuditActor): Promise<CreditedWorkspace> {
  const data = ZAddCreditsInput.parse(input);
  const exists = await tx.workspace.findUnique({ where: { id: data.workspaceId }, select: { id: true } });
  if (!exists) throw errors.notFound(`No workspace with id ${data.workspaceId}`, "workspace_not_found");
  const entryId = newId("cred");
  await applyMovements(tx, [
    {
      id: `credit:${entryId}`,
      kind: "credit",
      workspaceId: data.workspaceId,
      apiKeyId: null,
      amount: formatMoney(data.amount),
      entry: { id: entryId, note: data.note ?? null, createdById: data.createdById ?? null },
    },
  ]);
  const row = await tx.workspace.findUniqueOrThrow({ where: { id: data.workspaceId } });
  const changes = { amount: { from: null, to: formatMoney(data.amount) }, note: { from: null, to: data.note ?? null }, balance: { from: formatMoney(money(row.balance).minus(data.amount)), to: formatMoney(row.balance) } };
  await recordAudit(tx, { workspaceId: data.workspaceId, actor, action: "credits.add", target: { type: "credit", id: entryId }, changes });
  return { id: row.id, name: row.name, balance: formatMoney(row.balance), createdAt: row.createdAt.toISOString() };
}

export function addCredits(input: AddCreditsInput, actor?: AuditActor): Promise<CreditedWorkspace> {
  return db.$transaction((tx) => addCreditsTx(tx, input, actor));
}
