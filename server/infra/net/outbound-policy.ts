// The outbound guard's rules for a URL, as far as they can be decided without DNS: the scheme
// (https; plain http only to the operator's allowed hosts and addresses, or everywhere with
// OUTBOUND_ALLOW_HTTP), a literal IP address, and `localhost`. Checked when a tenant configures a
// URL (a 400 that says why) and again before every fetch (the address a name resolves to is
// checked at connect time, outbound-guard.ts).
import { isIP } from "node:net";
import { env } from "../env";
import { errors } from "../../kernel/errors";
import { addressRefusal, describeKind, isAllowedAddress, normalHost, parseAllowList, type AllowList } from "./address-policy";

export type OutboundPolicy = {
  allow: AllowList;
  /** Plain http to any public address, not only to the allowed ones. */
  allowHttp: boolean;
  /** The whole fetch, body included (ms). */
  timeoutMs: number;
  /** The largest answer read (bytes). */
  maxBytes: number;
};

/** The operator's policy (env.ts has already refused a malformed OUTBOUND_ALLOW at start). */
export const envPolicy: OutboundPolicy = {
  allow: parseAllowList(env.OUTBOUND_ALLOW),
  allowHttp: env.OUTBOUND_ALLOW_HTTP === "true",
  timeoutMs: env.OUTBOUND_TIMEOUT_MS,
  maxBytes: env.OUTBOUND_MAX_BYTES,
};

/** The host of a URL as compared and resolved (no brackets, no final dot, lower case). */
export function urlHost(url: URL): string {
  return normalHost(url.hostname);
}

function isAllowedHost(host: string, policy: OutboundPolicy): boolean {
  return policy.allow.hosts.has(host) || (isIP(host) !== 0 && isAllowedAddress(host, policy.allow));
}

/** Why this URL may not be fetched, as far as is known without DNS, or null. */
export function urlRefusal(url: URL, policy: OutboundPolicy): string | null {
  const host = urlHost(url);
  if (url.protocol !== "https:" && url.protocol !== "http:") return `only https URLs are allowed, not ${url.protocol.replace(/:$/, "")}`;
  if (url.protocol === "http:" && !policy.allowHttp && !isAllowedHost(host, policy)) return "plain http is not allowed; use https";
  if (policy.allow.hosts.has(host)) return null;
  if (isIP(host)) {
    const kind = addressRefusal(host, policy.allow);
    return kind && `it points at ${describeKind(kind)} (${host})`;
  }
  if (host === "localhost" || host.endsWith(".localhost")) return "it points at localhost";
  return null;
}

/**
 * The configuration-time check of a URL the gateway will fetch for a tenant: a 400
 * (`url_not_allowed`, naming `param`) that says why, when the URL can already be known to be refused.
 */
export function assertOutboundUrlAllowed(value: string, param: string, policy: OutboundPolicy = envPolicy): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.invalidRequest(`The ${param} is not a valid URL.`, param, "url_not_allowed");
  }
  const refusal = urlRefusal(url, policy);
  if (refusal) {
    throw errors.invalidRequest(
      `The ${param} is not allowed: ${refusal}. The gateway fetches only public https addresses, except the hosts and networks its operator allows (OUTBOUND_ALLOW).`,
      param,
      "url_not_allowed",
    );
  }
}
