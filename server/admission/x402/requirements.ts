// What a call accepts as payment (x402 v2 PaymentRequirements) and the 402 that says so: the
// `exact` scheme for a price known up front, `upto` for a metered call, in the operator's token,
// for the call's price (or its maximum) in atomic units, to the operator's wallet.
import type { PaymentRequirements } from "@x402/core/types";
import { errors, type GatewayError } from "../../kernel/errors";
import type { Money } from "../../kernel/money";
import { toAtomic } from "./amounts";
import type { PaymentServer } from "./resource-server";

export type CallPrice = { scheme: "exact" | "upto"; maxCost: Money; timeoutSeconds: number };

export async function requirementsFor({ server, config }: PaymentServer, price: CallPrice): Promise<PaymentRequirements> {
  const amount = toAtomic(price.maxCost, config.decimals);
  const [requirements] = await server.buildPaymentRequirements({
    scheme: price.scheme,
    network: config.network,
    payTo: config.payTo,
    price: { asset: config.asset, amount: amount.toString(), extra: { name: config.assetName, version: config.assetVersion } },
    maxTimeoutSeconds: price.timeoutSeconds,
  });
  if (!requirements) throw new Error(`x402: no ${price.scheme} requirements for ${config.network}`);
  return requirements;
}

const UNPAID = "This call must be paid: sign one of the payments its PAYMENT-REQUIRED header accepts and send it in PAYMENT-SIGNATURE (x402), or pass an API key.";

/** 402 with PAYMENT-REQUIRED listing what the call accepts; `reason` is the x402 reason a payment was refused for. */
export async function paymentRequired(ps: PaymentServer, requirements: PaymentRequirements, resource: string, reason?: string, detail?: string): Promise<GatewayError> {
  const body = await ps.server.createPaymentRequiredResponse([requirements], { url: resource, description: "Model gateway call", mimeType: "application/json" }, reason);
  const message = reason ? `The payment was refused (${reason})${detail ? `: ${detail}` : ""}. Sign a new payment for what PAYMENT-REQUIRED accepts.` : UNPAID;
  return errors.paymentRequired(message, body);
}
