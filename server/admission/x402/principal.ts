// The caller of a request with no credential when x402 is on: an x402 payer, with the payment its
// PAYMENT-SIGNATURE header carries (decoded and checked against the x402 v2 payload schema), or
// none yet (the call's admission then answers 402 with what it accepts).
import { errors } from "../../kernel/errors";
import { X402_WORKSPACE_ID } from "../../kernel/x402-workspace";
import type { CallContext, Principal, X402Payment } from "../../identity/principal";

type X402Principal = Extract<Principal, { kind: "x402" }>;

/** A call paid (or read) with x402. */
export type X402Context = CallContext & { principal: X402Principal };

async function decodePayment(header: string): Promise<X402Payment> {
  const [{ decodePaymentSignatureHeader }, { isPaymentPayloadV2 }] = await Promise.all([import("@x402/core/http"), import("@x402/core/schemas")]);
  let payload: unknown;
  try {
    payload = decodePaymentSignatureHeader(header.trim());
  } catch {
    throw errors.invalidPayment("The PAYMENT-SIGNATURE header is not a base64-encoded x402 payment payload.");
  }
  if (!isPaymentPayloadV2(payload)) throw errors.invalidPayment("The PAYMENT-SIGNATURE header is not an x402 version 2 payment payload.");
  return payload as X402Payment;
}

/** How an operation is open to x402 callers: paid `exact` or `upto` a maximum, or a `read` of what they paid for. */
export type X402Use = "exact" | "upto" | "read";

/** The x402 principal of a call at `resource` (the URL called) of an operation used as `use`, with the header's payment if any. */
export async function x402Principal(use: X402Use, paymentHeader: string | undefined, resource: string): Promise<X402Principal> {
  const scheme = use === "read" ? null : use;
  const payment = scheme && paymentHeader ? await decodePayment(paymentHeader) : null;
  return { kind: "x402", workspaceId: X402_WORKSPACE_ID, keyId: null, payment, scheme, resource };
}
