// The wire formats a node may speak, as data: how the gateway's key for the node is sent, the
// headers every call carries, and where a node's model list is. The translation of calls to and
// from each format lives beside it (openai-compatible/, anthropic/, gemini/).

export const WIRES = ["openai", "anthropic", "gemini", "azure", "bedrock", "vertex"] as const;
export type Wire = (typeof WIRES)[number];

type WireSpec = {
  /** The headers that carry the node's key. */
  auth: (apiKey: string) => Record<string, string>;
  /** Headers sent on every call to such a node. */
  headers: Record<string, string>;
  /** What a node's URL ends with when given as a bare origin (https://api.anthropic.com -> .../v1). */
  versionPath: string;
};

export const WIRE_SPECS: Record<Wire, WireSpec> = {
  openai: { auth: (key) => ({ authorization: `Bearer ${key}` }), headers: {}, versionPath: "/v1" },
  anthropic: { auth: (key) => ({ "x-api-key": key }), headers: { "anthropic-version": "2023-06-01" }, versionPath: "/v1" },
  gemini: { auth: (key) => ({ "x-goog-api-key": key }), headers: {}, versionPath: "/v1beta" },
  // The clouds authenticate through their specs (cloud.ts): these are their API-key forms.
  azure: { auth: (key) => ({ "api-key": key }), headers: {}, versionPath: "" },
  bedrock: { auth: (key) => ({ authorization: `Bearer ${key}` }), headers: {}, versionPath: "" },
  vertex: { auth: () => ({}), headers: {}, versionPath: "" },
};

/** The headers that identify the gateway to a node of this wire format. */
export function wireHeaders(wire: Wire | undefined, apiKey: string | null): Record<string, string> {
  const spec = WIRE_SPECS[wire ?? "openai"];
  return apiKey ? { ...spec.headers, ...spec.auth(apiKey) } : spec.headers;
}

/** A node's base URL: an Anthropic or Gemini node given as a bare origin gets its API's version path. */
export function nodeBaseUrl(url: string, wire: Wire): string {
  const trimmed = url.replace(/\/+$/, "");
  if (!WIRE_SPECS[wire].versionPath || new URL(trimmed).pathname !== "/") return trimmed;
  return `${trimmed}${WIRE_SPECS[wire].versionPath}`;
}
