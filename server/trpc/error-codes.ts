// The one table between tRPC error codes and HTTP statuses, read both ways: the REST adapter
// answers a tRPC error with its status, and the procedures turn a GatewayError's status into
// the tRPC error of the same meaning (so /api/trpc answers with that status too).
import type { TRPCError } from "@trpc/server";

export type TRPCErrorCode = TRPCError["code"];

export const STATUS_BY_CODE: Partial<Record<TRPCErrorCode, number>> = {
  BAD_REQUEST: 400,
  PARSE_ERROR: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  NOT_IMPLEMENTED: 501,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
};

const CODE_BY_STATUS = new Map<number, TRPCErrorCode>();
for (const [code, status] of Object.entries(STATUS_BY_CODE) as [TRPCErrorCode, number][]) {
  if (!CODE_BY_STATUS.has(status)) CODE_BY_STATUS.set(status, code);
}

export const trpcCodeFor = (status: number): TRPCErrorCode => CODE_BY_STATUS.get(status) ?? "INTERNAL_SERVER_ERROR";
