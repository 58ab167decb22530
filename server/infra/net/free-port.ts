import { readFileSync } from "node:fs";
import { createServer } from "node:net";

// A port the kernel hands out on listen(0) comes from its ephemeral range, the same range every
// outgoing connection takes its local port from: between the check and the listen that follows,
// a client socket (a pool's connection to PostgreSQL, a fetch) can take it, and the listen fails
// with EADDRINUSE. A port below that range is never taken that way, so one is chosen there.
const LOWEST = 15_000;

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1_000 ? low : 0;
  } catch {
    return 0; // not Linux: the kernel's own choice
  }
}

function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(null));
    // no host: the wildcard address, so a listener on any address of the port counts as taken
    srv.listen(port, () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => resolve(bound));
    });
  });
}

/** A TCP port that was free a moment ago, below the kernel's ephemeral range where it has one. */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  for (let attempt = 0; high > 0 && attempt < 20; attempt++) {
    const port = await tryListen(LOWEST + Math.floor(Math.random() * (high - LOWEST)));
    if (port !== null) return port;
  }
  const port = await tryListen(0);
  if (port === null) throw new Error("no free TCP port");
  return port;
}
