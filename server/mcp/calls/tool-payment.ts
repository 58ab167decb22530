// x402 on MCP (x402's MCP transport, version 2): a caller with no credential pays each priced
// tool call. Its payment comes in the call's `_meta["x402/payment"]` (a PaymentPayload); a call
// without one is answered with a tool result `isError: true` whose `structuredContent` is the
// PaymentRequired (and `content[0].text` the same as JSON), and a paid call's result carries the
// settlement in `_meta["x402/payment-response"]`. Verified, claimed once and settled as on /v1.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { admit } from "../../admission/admit";
import type { CallContext, X402Payment } from "../../identity/principal";
import { errors, GatewayError } from "../../kernel/errors";
import { money } from "../../kernel/money";
import type { Metering } from "../../ledger/meter";

export const PAYMENT_META = "x402/payment";
export const PAYMENT_RESPONSE_META = "x402/payment-response";

/** Admits a priced call of an x402 caller with the payment its `_meta` carries (none: 402 with what it accepts). */
export async function x402Metering(ctx: CallContext, name: string, price: string, payment: unknown): Promise<Metering> {
  const p = ctx.principal;
  if (p.kind !== "x402") throw new Error("x402Metering: not an x402 caller");
  if (payment !== undefined && payment !== null) {
    const { isPaymentPayloadV2 } = await import("@x402/core/schemas");
    if (!isPaymentPayloadV2(payment)) throw errors.invalidPayment(`\`_meta["${PAYMENT_META}"]\` is not an x402 version 2 payment payload.`);
  }
  // The payment of the call's `_meta`, else the request's PAYMENT-SIGNATURE header (as on /v1).
  ctx.principal = { ...p, payment: (payment as X402Payment | undefined) ?? p.payment, scheme: "exact" };
  return admit(ctx, { endpoint: "mcp.tools", model: `mcp:${name}`, maxCost: money(price) });
}

/** The tool result that asks for a payment, for a 402 that carries what the call accepts; null for any other refusal. */
export function paymentRequiredResult(err: unknown): CallToolResult | null {
  const required = err instanceof GatewayError ? err.detail.paymentRequired : undefined;
  if (!required) return null;
  return { isError: true, structuredContent: required as unknown as Record<string, unknown>, content: [{ type: "text", text: JSON.stringify(required) }] };
}

/** The settlement of a paid call, for its result's `_meta`. */
export function withPaymentResponse(result: CallToolResult, ctx: CallContext): CallToolResult {
  const payment = ctx.outcome.payment;
  return payment ? { ...result, _meta: { ...(result._meta ?? {}), [PAYMENT_RESPONSE_META]: payment } } : result;
}
