// Bedrock's errors in the gateway's terms. Its error answers are `{"message": ...}` with the
// exception's name in a header (x-amzn-ErrorType) the HTTP layer does not keep, so the status
// and the message tell them apart:
// - 429 (ThrottlingException, ModelNotReadyException): a 429 that always says when to retry
//   (Bedrock sends no Retry-After; its quotas are per minute);
// - 400 "Input is too long" / "too many tokens" (ValidationException): the 400
//   `context_length_exceeded` a route's fallback recognises; another 400 keeps Bedrock's words;
// - 401/403 (AccessDeniedException, UnrecognizedClientException, a signature mismatch): the
//   operator's to fix, a 502 that says what to check. Bedrock's own message is not passed on: it
//   names the account's identities (ARNs), and no message here ever holds a credential.
import { UpstreamFailure } from "../upstream-failure";

/** Retry-After (seconds) for a throttled call: Bedrock gives none. */
export const THROTTLED_RETRY_AFTER = "2";

const CONTEXT_OVERFLOW = /input is too long|too many (input )?tokens|prompt is too long|exceeds? the (maximum|context)|context (length|window)/i;

const awsMessage = (body: unknown): string => {
  const b = body as { message?: unknown; Message?: unknown } | null;
  return String(b?.message ?? b?.Message ?? "");
};

/**
 * Why the node refused the gateway's credentials, for the operator. Still a node failure: another
 * node may serve the call, and the router answers it as upstream_auth_failed with these words.
 */
export function accessRefusal(status: number, message: string, body?: unknown): UpstreamFailure {
  const why = /signature/i.test(message)
    ? "the request's signature did not match: check the node's secret access key (and that the server's clock is right)"
    : /security token|unrecognized|invalid.*(key|token)/i.test(message)
      ? "it does not know the access key or session token: check the node's access key id, or renew its session token"
      : /access to the model|don't have access|not authorized/i.test(message)
        ? "the node's identity may not call this model: allow it bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream on it, and enable access to the model in the Bedrock console for the node's region"
        : "check the node's AWS credentials and their IAM policy";
  return new UpstreamFailure("status", `the Bedrock node refused its AWS credentials (HTTP ${status}): ${why}`, status, body);
}

const invalid = (message: string, code: string) => ({ error: { message, type: "invalid_request_error", param: code === "context_length_exceeded" ? "messages" : null, code } });

/** A failed Bedrock call as the gateway reports it. */
export function bedrockFailure(err: unknown): unknown {
  if (!(err instanceof UpstreamFailure) || err.kind !== "status") return err;
  const status = err.status ?? 0;
  const message = awsMessage(err.body);
  if (status === 429) return new UpstreamFailure("status", "the node is throttled", 429, err.body, err.retryAfter ?? THROTTLED_RETRY_AFTER);
  if (status === 401 || status === 403) return accessRefusal(status, message, err.body);
  if (status === 400 && CONTEXT_OVERFLOW.test(message)) return new UpstreamFailure("status", message, 400, invalid(message, "context_length_exceeded"));
  if (status === 400) return new UpstreamFailure("status", message || err.message, 400, invalid(message || err.message, "upstream_rejected"));
  return err;
}

/** Runs a call to the node, its failure told in the gateway's terms. */
export async function mapped<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw bedrockFailure(err);
  }
}

/** An exception frame of a stream (`:exception-type`), as Anthropic's error type names it. */
export function anthropicErrorType(exception: string): string {
  if (/throttl/i.test(exception)) return "rate_limit_error";
  if (/validation/i.test(exception)) return "invalid_request_error";
  if (/unavailable|modelNotReady/i.test(exception)) return "overloaded_error";
  return "api_error";
}

/** What the client is told of an exception mid-stream: its kind and Bedrock's words. */
export const streamFailureMessage = (exception: string, message: string) => `The Bedrock node failed while streaming (${exception}): ${message || "no detail given"}`;
