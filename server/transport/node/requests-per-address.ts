// Behind a trusted reverse proxy (TRUST_PROXY=true) every connection comes from the proxy, which
// keeps its own few to many clients: the per-address cap (MAX_CONNECTIONS_PER_IP) counts instead
// the requests in flight of each forwarded client address (the last X-Forwarded-For entry, the one
// the proxy appended), in this process. A request over the cap is refused before it is served.
import type { IncomingMessage, ServerResponse } from "node:http";
import { clientIp } from "./client-ip";
import { addressKey } from "./connections-per-address";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `serve`, with at most `max` requests in flight per forwarded address; one more goes to `refuse`. */
export function capRequestsPerAddress(max: number, serve: Handler, refuse: (res: ServerResponse) => void): Handler {
  const inFlight = new Map<string, number>();
  return (req, res) => {
    const address = addressKey(clientIp(req, true));
    const n = inFlight.get(address) ?? 0;
    if (n >= max) return refuse(res);
    inFlight.set(address, n + 1);
    // "close" comes once per response, answered in full or cut off with its connection.
    res.once("close", () => {
      const left = inFlight.get(address)! - 1;
      if (left > 0) inFlight.set(address, left);
      else inFlight.delete(address);
    });
    serve(req, res);
  };
}
