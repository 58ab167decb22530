// The public origin of this gateway, which image links point at: PUBLIC_BASE_URL when set, else
// the origin the request was sent to. X-Forwarded-Host/-Proto are believed only behind a trusted
// reverse proxy (TRUST_PROXY=true): otherwise any client could point signed links at another site.
import { env } from "../infra/env";
import type { IncomingCall } from "./call";

/** The value the nearest proxy added (the last of a comma-separated list). */
const nearest = (value: string | undefined) => value?.split(",").at(-1)?.trim() || undefined;
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export function publicOrigin(call: IncomingCall): string {
  if (env.PUBLIC_BASE_URL) return env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  const self = new URL(call.selfOrigin());
  const trusted = env.TRUST_PROXY === "true";
  const forwardedHost = trusted ? nearest(call.header("x-forwarded-host")) : undefined;
  const forwardedProto = trusted ? nearest(call.header("x-forwarded-proto"))?.toLowerCase() : undefined;
  const candidates = [forwardedHost, call.header("host"), self.host];
  const host = candidates.find((h): h is string => !!h && HOST.test(h)) ?? "localhost";
  const proto = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : self.protocol.replace(":", "");
  return `${proto}://${host}`;
}
