import { z } from "zod";
import { db, type Tx } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { newId } from "../kernel/ids";
import { DECIMAL_STRING, formatMoney, money, ZCreditAmount } from "../kernel/money";


export const ZAddCreditsInput = z.object({
  workspaceId: z.string().min(1),
  amount: ZCreditAmount.refine((v) => !DECIMAL_STRING.test(v) || money(v).gt(0), "must be greater than zero"),
  note: z.string().max(500).optional(),
  createdById: z.string().optional(),
});
export type AddCreditsInput = z.input<typeof ZAddCreditsInput>;

/** The workspace after the credit, its balance as a decimal string. */
export type CreditedWorkspace = { id: string; name: string; balance: string; createdAt: string };

/** Records the credit in the ledger and raises the balance by exactly that amount, atomically. */
export async function addCreditsTx(tx: Tx, input: AddCreditsInput): Promise<CreditedWorkspace> {
  const data = ZAddCreditsInput.parse(input);
  const exists = await tx.workspace.findUnique({ where: { id: data.workspaceId }, select: { id: true } });
  if (!exists) throw errors.notFound(`No workspace with id ${data.workspaceId}`, "workspace_not_found");
  await tx.creditLedgerEntry.create({
    data: {
      id: newId("cred"),
      workspaceId: data.workspaceId,
      kind: "credit",
      amount: formatMoney(data.amount),
      note: data.note ?? null,
      createdById: data.createdById ?? null,
    },
  });
  const row = await tx.workspace.update({
    where: { id: data.workspaceId },
    data: { balance: { increment: formatMoney(data.amount) } },
  });
  return { id: row.id, name: row.name, balance: formatMoney(row.balance), createdAt: row.createdAt.toISOString() };
}

export function addCredits(input: AddCreditsInput): Promise<CreditedWorkspace> {
  return db.$transaction((tx) => addCreditsTx(tx, input));
}
