// The client's address, for sign-in throttling: the peer's, or behind one trusted reverse proxy
// (trustProxy) the last X-Forwarded-For entry, the one that proxy appended. Never an address a
// client can choose.
import type { IncomingMessage } from "node:http";

export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy
    ? String(req.headers["x-forwarded-for"] ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .at(-1)
    : undefined;
  return forwarded ?? req.socket.remoteAddress ?? "unknown";
}
