// The credential a request carries, read from its headers (the pipeline's first stage resolves
// it to a principal: server/pipeline/authenticate.ts).
import { GatewayError } from "../kernel/errors";

/** The API key a client paying with x402 may pass to an SDK that requires one. */
const X402_PLACEHOLDER = /^Bearer\s+x402\s*$/i;

const ambiguous = (message: string) => new GatewayError({ status: 400, code: "ambiguous_credentials", param: null, message });

/**
 * The one credential a request carries, as an Authorization value (`Bearer <secret>`), or null
 * when it carries none (or only the x402 placeholder). Anthropic-format clients send their key in
 * `x-api-key`, which counts the same. A request naming two credentials is refused (400) rather
 * than served under whichever a proxy or parser happens to keep: two Authorization headers (the
 * data plane's server joins repeated headers with ", ", which no single credential contains), or
 * an Authorization and an x-api-key that name different secrets.
 */
export function credentialOf(authorization: string | undefined, apiKey: string | undefined): string | null {
  if (authorization?.includes(",")) throw ambiguous("The request carries more than one Authorization header. Send exactly one credential.");
  if (apiKey?.includes(",")) throw ambiguous("The request carries more than one x-api-key header. Send exactly one credential.");
  const bearer = authorization?.trim() ? authorization : undefined;
  // `x-api-key: x402` is the placeholder too (for Anthropic-format SDKs that insist on a key).
  const key = apiKey?.trim() && apiKey.trim().toLowerCase() !== "x402" ? apiKey.trim() : undefined;
  if (!key) return bearer && !X402_PLACEHOLDER.test(bearer) ? bearer : null;
  if (bearer && !X402_PLACEHOLDER.test(bearer) && bearer.match(/^Bearer\s+(\S+)\s*$/i)?.[1] !== key) {
    throw ambiguous("The Authorization and x-api-key headers name different credentials. Send exactly one.");
  }
  return `Bearer ${key}`;
}
