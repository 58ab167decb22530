// The public origin of this gateway, which image links point at: PUBLIC_BASE_URL when set, else
// the origin the request was sent to (as a reverse proxy reports it in X-Forwarded-Host/-Proto).
import { env } from "../infra/env";
import type { IncomingCall } from "./call";

export function publicOrigin(call: IncomingCall): string {
  if (env.PUBLIC_BASE_URL) return env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  const self = new URL(call.selfOrigin());
  const host = call.header("x-forwarded-host") ?? call.header("host") ?? self.host;
  const proto = call.header("x-forwarded-proto") ?? self.protocol.replace(":", "");
  return `${proto}://${host}`;
}
