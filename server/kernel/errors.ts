// The one transport-neutral error type of the gateway. Services throw it; the transports' one error
// adapter (server/transport/error-adapter.ts) answers it with the OpenAI error body, its status and
// the headers its typed `detail` implies; the dashboard's tRPC edge (server/trpc/init.ts) sends it
// as the tRPC error of the same status. Nothing else decides a status.
import type { PaymentRequired } from "@x402/core/types";

/** The API family an answer (and an error) is shaped for: OpenAI's, or Anthropic's Messages API. */
export type Dialect = "openai" | "anthropic";

/** The status an error goes out with in Anthropic's format: its overloaded_error is 529 where OpenAI's shape says 503. */
export const anthropicStatus = (status: number): number => (status === 503 ? 529 : status);

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "insufficient_quota"
  | "not_implemented"
  | "rate_limit_error"
  | "server_error";

/** What a refusal tells the client beside its body, as values (the transport writes the headers). */
export type ErrorDetail = {
  /** When a retry may succeed: seconds, or an upstream's own Retry-After value passed on. */
  retryAfter?: number | string;
  /** x402: what the call accepts as payment (PAYMENT-REQUIRED). */
  paymentRequired?: PaymentRequired;
  /** 416: the size of the content the range missed (Content-Range: bytes *\/size). */
  contentSize?: number;
  /** 405: the methods the path has (Allow). */
  allow?: readonly string[];
};

export type GatewayErrorInit = {
  status: number;
  code: string;
  message: string;
  type?: ErrorType;
  param?: string | null;
  detail?: ErrorDetail;
  cause?: unknown;
};

export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly detail: ErrorDetail;

  constructor(init: GatewayErrorInit) {
    super(init.message, { cause: init.cause });
    this.name = "GatewayError";
    this.status = init.status;
    this.code = init.code;
    this.type = init.type ?? defaultType(init.status);
    this.param = init.param ?? null;
    this.detail = init.detail ?? {};
  }
}

function defaultType(status: number): ErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 501) return "not_implemented";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Constructors for the errors services raise; each names the status and code once. */
export const errors = {
  invalidRequest: (message: string, param: string | null = null, code = "invalid_request") =>
    new GatewayError({ status: 400, code, message, param }),
  invalidApiKey: (message = "Incorrect or missing API key. Pass it as `Authorization: Bearer <key>`.") =>
    new GatewayError({ status: 401, code: "invalid_api_key", type: "invalid_request_error", message }),
  /** A dashboard call without a signed-in session. */
  unauthenticated: () => new GatewayError({ status: 401, code: "unauthenticated", message: "Sign in first." }),
  permissionDenied: (message: string) => new GatewayError({ status: 403, code: "permission_denied", message }),
  notFound: (message: string, code = "not_found", param: string | null = null) =>
    new GatewayError({ status: 404, code, message, param }),
  modelNotFound: (model: string) =>
    new GatewayError({
      status: 404,
      code: "model_not_found",
      type: "invalid_request_error",
      param: "model",
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
    }),
  insufficientQuota: (message = "Your workspace has no credits left. Add credits to continue.") =>
    new GatewayError({ status: 402, code: "insufficient_quota", type: "insufficient_quota", message }),
  /**
   * A key at its spend limit is a valid credential that may not spend any more: answered like the
   * workspace's own 402 (same type), with a code of its own, since adding credits does not help.
   */
  keySpendLimitReached: (message = "This API key has reached its spend limit. Use another key, or ask a workspace admin for a key with a higher limit.") =>
    new GatewayError({ status: 402, code: "key_spend_limit_reached", type: "insufficient_quota", message }),
  modelNotAllowed: (model: string, plan: string) =>
    new GatewayError({ status: 403, code: "model_not_allowed", param: "model", message: `The model \`${model}\` is not included in plan ${plan}.` }),
  /** The API key may call this model neither by itself nor through its plan (its own model list). */
  keyModelNotAllowed: (model: string) =>
    new GatewayError({ status: 403, code: "model_not_allowed", param: "model", message: `This API key may not call the model \`${model}\`.` }),
  /** A restricted API key (or a session token it minted) calls an operation of a group it was not given (server/identity/keys/permissions.ts). */
  insufficientPermissions: (permission: string, operation: string, credential = "API key") =>
    new GatewayError({ status: 403, code: "insufficient_permissions", message: `This ${credential} lacks the \`${permission}\` permission needed for ${operation}.` }),
  /** A key asks to mint a session token under a plan that would allow more than the key itself (docs/SESSIONS.md). */
  planNotAllowed: (message: string) => new GatewayError({ status: 403, code: "plan_not_allowed", param: "plan", message }),
  /** A spend cap of a key, an end user (subject) or a session is reached: distinct from an empty balance. */
  budgetExceeded: (message: string) => new GatewayError({ status: 402, code: "budget_exceeded", type: "insufficient_quota", message }),
  /**
   * x402: the call must be paid, or its payment was refused; `accepts` (sent as PAYMENT-REQUIRED)
   * says what it accepts. `invalid_payment`: the PAYMENT-SIGNATURE header cannot be read at all.
   */
  paymentRequired: (message: string, accepts: PaymentRequired) =>
    new GatewayError({ status: 402, code: "payment_required", type: "insufficient_quota", message, detail: { paymentRequired: accepts } }),
  invalidPayment: (message: string) => new GatewayError({ status: 402, code: "invalid_payment", type: "invalid_request_error", message }),
  /** x402: the facilitator could not be asked; nothing was served or charged. */
  facilitatorUnavailable: (cause: unknown) =>
    new GatewayError({ status: 503, code: "facilitator_unavailable", message: "The payment facilitator cannot be reached; nothing was charged. Retry later.", cause }),
  /** The caller's own rate limit; the limits' state goes with the call's outcome (kernel/call-outcome.ts). */
  rateLimited: (message: string, retryAfterSeconds: number) =>
    new GatewayError({ status: 429, code: "rate_limit_exceeded", type: "rate_limit_error", message, detail: { retryAfter: retryAfterSeconds } }),
  /** Session tokens: 401s of their own, so an app knows to mint a new token rather than fix a key. */
  tokenExpired: () => new GatewayError({ status: 401, code: "token_expired", message: "The session token has expired. Mint a new one." }),
  invalidToken: (message: string) => new GatewayError({ status: 401, code: "invalid_token", message }),
  tokenRevoked: () => new GatewayError({ status: 401, code: "token_revoked", message: "The session token has been revoked." }),
  /** A call still open when its gateway process stops at the end of its drain. */
  shuttingDown: () =>
    new GatewayError({
      status: 503,
      code: "server_shutting_down",
      type: "server_error",
      message: "The gateway process serving this request is shutting down and ended it before it finished. Retry the request.",
    }),
};
