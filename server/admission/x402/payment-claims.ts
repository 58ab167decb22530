// The X402Payment rows: a payment is claimed when it is first seen (one row per network, asset,
// payer and nonce, so a payment is served once across every instance), then settled with its
// call's usage in one transaction, or released (the call failed) or marked failed (the chain
// refused it). A payment whose verification failed is dropped: its nonce was never used.
import type { PaymentRequirements } from "@x402/core/types";
import { db } from "../../infra/db/client";
import { Prisma } from "../../generated/prisma/client";
import { newId } from "../../kernel/ids";
import type { X402Payment } from "../../identity/principal";

export type Claim = { id: string; payer: string; nonce: string; scheme: string };

type Authorization = { from?: unknown; nonce?: unknown };

/** The payer and nonce a payment signs: an EIP-3009 authorization or a Permit2 one. */
export function signedBy(payment: X402Payment): { payer: string; nonce: string } | null {
  const p = payment.payload as { authorization?: Authorization; permit2Authorization?: Authorization };
  const auth = p.authorization ?? p.permit2Authorization;
  if (typeof auth?.from !== "string" || (typeof auth.nonce !== "string" && typeof auth.nonce !== "number")) return null;
  return { payer: auth.from.toLowerCase(), nonce: String(auth.nonce).toLowerCase() };
}

/** Claims the payment's nonce; null when it was claimed before (on any instance): a replay. */
export async function claimPayment(
  payment: X402Payment,
  requirements: PaymentRequirements,
  call: { endpoint: string; modelId: string },
  signer: { payer: string; nonce: string },
): Promise<Claim | null> {
  const id = newId("x402pay");
  try {
    await db.x402Payment.create({
      data: {
        id,
        network: requirements.network,
        asset: requirements.asset.toLowerCase(),
        scheme: requirements.scheme,
        payer: signer.payer,
        nonce: signer.nonce,
        maxAmount: requirements.amount,
        endpoint: call.endpoint,
        modelId: call.modelId,
        payload: payment as unknown as Prisma.InputJsonValue,
        requirements: requirements as unknown as Prisma.InputJsonValue,
      },
    });
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") return null;
    throw err;
  }
  return { id, ...signer, scheme: requirements.scheme };
}

/** Forgets a claim whose payment was not accepted (nothing was served with it). */
export async function dropClaim(id: string): Promise<void> {
  await db.x402Payment.deleteMany({ where: { id, status: "verified" } });
}

/** The call failed: nothing is settled; the nonce stays used. */
export async function releaseClaim(id: string): Promise<void> {
  await db.x402Payment.updateMany({ where: { id, status: "verified" }, data: { status: "released", settledAt: new Date() } });
}

export async function failClaim(id: string, reason: string): Promise<void> {
  await db.x402Payment.updateMany({ where: { id, status: "verified" }, data: { status: "failed", errorReason: reason.slice(0, 500), settledAt: new Date() } });
}
