import { z } from "zod";
import { db, type Tx } from "../db/client";
import { errors } from "../errors";
import { newId } from "../ids";
import { DECIMAL_STRING, formatMoney, money } from "../money";
import { toWorkspaceView, type WorkspaceView } from "./workspace-view";

export const ZCreditAmount = z
  .string()
  .regex(DECIMAL_STRING, "must be a non-negative decimal amount in USD, such as 25 or 0.5")
  .refine((v) => !DECIMAL_STRING.test(v) || money(v).decimalPlaces() <= 18, "at most 18 decimal places");

export const ZAddCreditsInput = z.object({
  workspaceId: z.string().min(1),
  amount: ZCreditAmount.refine((v) => !DECIMAL_STRING.test(v) || money(v).gt(0), "must be greater than zero"),
  note: z.string().max(500).optional(),
  createdById: z.string().optional(),
});
export type AddCreditsInput = z.input<typeof ZAddCreditsInput>;

/** Records the credit in the ledger and raises the balance by exactly that amount, atomically. */
export async function addCreditsTx(tx: Tx, input: AddCreditsInput): Promise<WorkspaceView> {
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
  return toWorkspaceView(row);
}

export function addCredits(input: AddCreditsInput): Promise<WorkspaceView> {
  return db.$transaction((tx) => addCreditsTx(tx, input));
}
