// A Gemini function call's id and thought signature, carried through OpenAI's tool call id.
//
// Gemini 3 answers a function call with a `thoughtSignature` that must come back on that call's
// part in the next request (a 400 otherwise). An OpenAI client keeps nothing of a tool call but
// its id, name and arguments (frameworks rebuild the history from their own types), so the
// signature rides in the id: `<id>__sig__<signature as base64url>`. Gemini's own call id is kept
// when it gave one; otherwise the answer's calls are numbered `call_0`, `call_1`, ..., ids the
// gateway made, which are not sent back to Gemini as its ids.

const SEPARATOR = "__sig__";
const MADE_HERE = /^call_\d+$/;

const toUrlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromUrlSafe = (url: string) => {
  const b64 = url.replace(/-/g, "+").replace(/_/g, "/");
  return b64 + "=".repeat((4 - (b64.length % 4)) % 4);
};

/** The OpenAI tool call id of the answer's `index`-th function call. */
export function toolCallId(geminiId: string | undefined, index: number, signature: string | undefined): string {
  const id = geminiId || `call_${index}`;
  return signature ? `${id}${SEPARATOR}${toUrlSafe(signature)}` : id;
}

export type ParsedToolCallId = {
  /** Gemini's id of the call, when Gemini gave it one. */
  geminiId?: string;
  signature?: string;
};

/** What a tool call id carries back: Gemini's id (not one made here) and the thought signature. */
export function parseToolCallId(id: string): ParsedToolCallId {
  const at = id.indexOf(SEPARATOR);
  const base = at < 0 ? id : id.slice(0, at);
  const signature = at < 0 ? undefined : fromUrlSafe(id.slice(at + SEPARATOR.length));
  return { geminiId: MADE_HERE.test(base) ? undefined : base, signature };
}
