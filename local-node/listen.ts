// Starts a local node in this process on a free port: for tests and benchmarks.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalNode, type LocalNodeOptions } from "./server";

export type RunningNode = { url: string; server: Server; close: () => Promise<void> };

export async function startLocalNode(options: LocalNodeOptions = {}, host = "127.0.0.1"): Promise<RunningNode> {
  const server = createLocalNode(options);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
