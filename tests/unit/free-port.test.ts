// freePort: a port below the kernel's ephemeral range (where outgoing connections take theirs),
// free to listen on, and never one a listener already holds.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/infra/net/free-port";

const held: Server[] = [];
afterAll(() => held.forEach((s) => s.close()));

function listen(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(port, host, () => resolve(srv));
  });
}

describe("freePort", () => {
  it("returns ports below the ephemeral range that can be listened on, none of them one already held", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(15_000);
      expect(port).toBeLessThan(low);
      expect(seen.has(port)).toBe(false); // each one is held below, so it cannot come back
      seen.add(port);
      held.push(await listen(port, i % 2 ? "127.0.0.1" : "0.0.0.0"));
    }
  });
});
