// The caller of a request with no credential when x402 is on: an x402 payer, with the payment its
// PAYMENT-SIGNATURE header carries (decoded and checked against the x402 v2 payload schema), or
// none yet (the call's admission then answers 402 with what it accepts).
import type { AnyOperation } from "../../contract/operation";
import { errors } from "../../kernel/errors";
import { X402_WORKSPACE_ID } from "../../kernel/x402-workspace";
import type { Principal, X402Payment } from "../../identity/principal";

type X402Principal = Extract<Principal, { kind: "x402" }>;

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

/** The x402 principal of a call to `op` at `resource` (the URL called), with the header's payment if any. */
export async function x402Principal(op: AnyOperation, paymentHeader: string | undefined, resource: string): Promise<X402Principal> {
  const scheme = op.x402 === "exact" || op.x402 === "upto" ? op.x402 : null;
  const payment = scheme && paymentHeader ? await decodePayment(paymentHeader) : null;
  return { kind: "x402", workspaceId: X402_WORKSPACE_ID, keyId: null, payment, scheme, resource };
}
