import { z } from "zod";
import { db, type Tx } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { newId } from "../kernel/ids";
import { DECIMAL_STRING, formatMoney, money, ZCreditAmount } from "../kernel/money";
import type { Workspace } from "../generated/prisma/client";


export const ZAddCreditsInput = z.object({
  workspaceId: z.string().min(1),
  amount: ZCreditAmount.refine((v) => !DECIMAL_STRING.test(v) || money(v).gt(0), "must be greater than zero"),
  note: z.string().max(500).optional(),
  createdById: z.string().optional(),
});
export type AddCreditsInput = z.input<typeof ZAddCreditsInput>;

/** Records the credit in the ledger and raises the balance by exactly that amount, atomically. */
export async function addCreditsTx(tx: Tx, input: AddCreditsInput): Promise<Workspace> {
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
  return row;
}

export function addCredits(input: AddCreditsInput): Promise<Workspace> {
  return db.$transaction((tx) => addCreditsTx(tx, input));
}
