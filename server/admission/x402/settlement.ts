// Settling an x402 payment and recording it: the facilitator settles the payment on chain (the
// authorized amount for `exact`, the metered amount for `upto`; nothing when that is zero), then
// one transaction writes the ledger's movements (the payment credited to the x402 workspace and
// the call's usage charged, so its balance stays at zero) with the usage event naming the payer,
// scheme and transaction, and marks the payment settled. Shared by calls and video jobs.
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import { db } from "../../infra/db/client";
import { newId } from "../../kernel/ids";
import { applyMovements, LEDGER_TX, usageMovement, type Movement, type UsageRecord } from "../../ledger/movements";
import type { Money } from "../../kernel/money";
import { X402_WORKSPACE_ID } from "../../kernel/x402-workspace";
import type { X402Payment } from "../../identity/principal";
import { fromAtomic } from "./amounts";
import type { PaymentServer } from "./resource-server";

export type Settleable = { id: string; payer: string; scheme: string; payment: X402Payment; requirements: PaymentRequirements };

/** `unreachable`: the facilitator could not be asked (rather than refusing the payment). */
export type Settled = { response: SettleResponse; amount: bigint; unreachable?: unknown };

/** Settles `amount` atomic units of the payment; a response without success when the chain or facilitator refused. */
export async function settleOnChain(ps: PaymentServer, p: Settleable, amount: bigint): Promise<Settled> {
  if (amount === 0n) return { response: { success: true, transaction: "", network: p.requirements.network, payer: p.payer, amount: "0" }, amount };
  try {
    const response = await ps.server.settlePayment(p.payment, p.requirements, undefined, undefined, p.scheme === "upto" ? { amount: amount.toString() } : undefined);
    return { response, amount: response.amount ? BigInt(response.amount) : amount };
  } catch (err) {
    const response = { success: false, errorReason: "settle_error", errorMessage: (err as Error).message, transaction: "", network: p.requirements.network, payer: p.payer };
    return { response, amount, unreachable: err };
  }
}

/**
 * The ledger's movements of one settled call: the payment credited to the x402 workspace and the
 * call's usage charged to it (the same amount, so its balance stays at zero), the usage event
 * naming the payer, scheme and transaction. The event id is the idempotency key of both.
 */
export function settlementMovements(p: { payer: string; scheme: string }, cost: Money | string, tx: string | null, usage: UsageRecord): Movement[] {
  return [
    {
      id: `credit:x402:${usage.eventId}`,
      kind: "credit",
      workspaceId: X402_WORKSPACE_ID,
      apiKeyId: null,
      amount: cost,
      entry: { id: newId("cred"), note: `x402 ${p.scheme} payment from ${p.payer}${tx ? ` (${tx})` : ""}`, createdById: null },
    },
    usageMovement({ workspaceId: X402_WORKSPACE_ID, apiKeyId: null }, cost, { ...usage, payer: p.payer, paymentScheme: p.scheme, paymentTx: tx }),
  ];
}

let workspaceReady: Promise<void> | undefined;

/** The x402 workspace exists (the migration made it; a database restored without it gets it back). */
async function ensureWorkspace(): Promise<void> {
  await db.$executeRaw`INSERT INTO "Workspace" ("id", "name", "balance", "updatedAt") VALUES (${X402_WORKSPACE_ID}, 'x402 payments', 0, now()) ON CONFLICT ("id") DO NOTHING`;
}

/** Records a settled payment with its call's usage in the ledger, once (the event id is the idempotency key). */
export async function recordSettlement(ps: PaymentServer, p: Settleable, settled: Settled, usage: UsageRecord): Promise<void> {
  const cost = fromAtomic(settled.amount, ps.config.decimals);
  const tx = settled.response.transaction || null;
  await (workspaceReady ??= ensureWorkspace().catch((err) => {
    workspaceReady = undefined;
    throw err;
  }));
  await db.$transaction(async (q) => {
    await applyMovements(q, settlementMovements({ payer: p.payer, scheme: p.scheme }, cost, tx, usage));
    await q.x402Payment.update({ where: { id: p.id }, data: { status: "settled", settledAmount: settled.amount.toString(), txHash: tx, eventId: usage.eventId, settledAt: new Date() } });
  }, LEDGER_TX);
}
