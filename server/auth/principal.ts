/** Who is calling. Every credential kind (API key; later plan tokens, x402) resolves to this. */
export type Principal = { kind: "api_key"; workspaceId: string; keyId: string };

/** A call as the services see it: who makes it, and the request id it is answered under. */
export type CallContext = { principal: Principal; requestId: string };
