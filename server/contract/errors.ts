// The error statuses of the API: what each means in general (one OpenAPI component response per
// status, the body always the error object of part 2.1), and the set every call answered by a
// node can produce. Operations declare the statuses they answer beyond what their tier, input and
// path imply (`errors` in operation.ts).

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 416 | 422 | 429 | 500 | 502 | 503 | 504;

/** One component response per error status (the body is always the error object, part 2.1). */
export const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: { name: "BadRequest", description: "Invalid request: a field fails validation (`param` names it), the body is not valid JSON or a readable form, or the request carries two credentials (`ambiguous_credentials`: two `Authorization` headers, or an `Authorization` and an `x-api-key` that differ)." },
  401: { name: "Unauthorized", description: "Missing, malformed, unknown, revoked or expired API key (`invalid_api_key`); a session token that expired (`token_expired`), is not valid (`invalid_token`: signature, audience, unknown `kid`) or was revoked (`token_revoked`)." },
  402: {
    name: "PaymentRequired",
    description: "The workspace's credits do not cover the call (`insufficient_quota`), the API key reached its spend limit (`key_spend_limit_reached`), or the call would pass a daily, monthly or session spend cap (`budget_exceeded`). With x402 on, a call without credential must be paid (`payment_required`: the `PAYMENT-REQUIRED` header says what it accepts, and why a payment was refused) or carried an unreadable `PAYMENT-SIGNATURE` (`invalid_payment`).",
  },
  403: {
    name: "Forbidden",
    description:
      "The credential may not do this (`permission_denied`), a restricted API key (or a token it minted) lacks the operation's permission group (`insufficient_permissions`), the model is not in the caller's plan or the key's models (`model_not_allowed`), or a key asked to mint a session token for a plan that allows more than itself (`plan_not_allowed`).",
  },
  404: { name: "NotFound", description: "No such object in the caller's workspace: unknown, expired, or another workspace's id (all answered alike)." },
  405: { name: "MethodNotAllowed", description: "The path exists but not with this method (`method_not_allowed`); the `Allow` header lists the methods it has." },
  409: { name: "Conflict", description: "The object is not in a state that allows this." },
  413: { name: "PayloadTooLarge", description: "The body, or a file in it, exceeds the gateway's size limit (`request_too_large`)." },
  416: { name: "RangeNotSatisfiable", description: "The `Range` starts beyond the end of the content (`range_not_satisfiable`); `Content-Range` gives the size." },
  422: { name: "UnprocessableEntity", description: "The node serving the model refused the request as it stands; its code and message are passed on." },
  429: { name: "TooManyRequests", description: "A rate limit of the key or the session's subject is reached (`rate_limit_exceeded`, with `Retry-After` and the `x-ratelimit-*` headers), or the nodes serving the model are rate limited (`upstream_rate_limited`)." },
  500: { name: "InternalError", description: "The gateway failed (`internal_error`); quote the `x-request-id` when reporting it." },
  502: { name: "BadGateway", description: "The node serving the model failed or sent an unreadable answer (`upstream_error`); the call is not charged." },
  503: { name: "ServiceUnavailable", description: "No node is available to serve the model right now (`no_available_node`), or the x402 payment facilitator cannot be reached (`facilitator_unavailable`, nothing charged); retry shortly." },
  504: { name: "GatewayTimeout", description: "The node serving the model timed out (`upstream_timeout`); the call is not charged." },
};

/** Calls answered by a node: the model must exist and a node must serve it, in time. */
export const NODE_CALL: Partial<Record<ErrorStatus, string>> = {
  404: "No such model (`model_not_found`).",
  422: ERROR_RESPONSES[422].description,
  429: ERROR_RESPONSES[429].description,
  502: ERROR_RESPONSES[502].description,
  503: ERROR_RESPONSES[503].description,
  504: ERROR_RESPONSES[504].description,
};
