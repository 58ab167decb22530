// How an OpenAI-compatible node is told the gateway's key for it: a bearer token.

/** The Authorization header for a node's API key; none for a node without a key. */
export function authHeaders(apiKey: string | null): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}
