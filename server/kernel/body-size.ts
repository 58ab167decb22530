// The size in bytes of a request body as the client sent it, noted beside the parsed body (and the
// validated input made from it) for whoever bounds a call by its size: a chat call's reservation
// counts its request's bytes (routing/catalog/pricing.ts), which for a coding agent's 40 KB body
// it otherwise measured by serialising the body again (6 % of such a call's CPU, bench:path's
// `large` row). An input built by the gateway (a translated body, a route's target) has none.
const sizes = new WeakMap<object, number>();

export function noteBodySize(body: object, bytes: number): void {
  sizes.set(body, bytes);
}

/** Forgets a body's size once its text changed (a guardrail redacted it). */
export function forgetBodySize(body: object): void {
  sizes.delete(body);
}

export function bodySizeOf(body: unknown): number | undefined {
  return typeof body === "object" && body !== null ? sizes.get(body) : undefined;
}
