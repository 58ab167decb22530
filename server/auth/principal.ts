/** Who is calling. Every credential kind (API key; later plan tokens, x402) resolves to this. */
export type Principal = { kind: "api_key"; workspaceId: string; keyId: string };
