// When a streaming client goes away, the producer is still run to its end: it finishes reading
// the node and bills what the node produced. Bounded by STREAM_DRAIN_TIMEOUT_MS.
import { env } from "../infra/env";
import { toGatewayError } from "./error-adapter";
import { logFor } from "../infra/telemetry/log";

const log = logFor("http");

export function drainAfterDisconnect<T>(iterator: AsyncIterator<T>, requestId: string): void {
  const deadline = Date.now() + env.STREAM_DRAIN_TIMEOUT_MS;
  void (async () => {
    try {
      while (Date.now() < deadline && !(await iterator.next()).done);
      if (Date.now() >= deadline) await iterator.return?.(undefined);
    } catch (err) {
      if (!toGatewayError(err)) log.error({ err, requestId }, "stream failed after the client left");
    }
  })();
}
