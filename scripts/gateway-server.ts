// The gateway's HTTP server, as `npm start` runs it: on every core (WEB_CONCURRENCY processes,
// default the number of cores, sharing one port), /v1 and /health are answered by the lean
// node:http data plane over the contract, and every other path (the dashboard, /api/*) by Next.js.
import cluster from "node:cluster";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { availableParallelism } from "node:os";
import { clientIp } from "./lib/client-ip.mjs";

// Read without the server's env module (and zod): the cluster's primary loads nothing it does not use.
const concurrency = process.env.WEB_CONCURRENCY?.trim() || "0";
if (!/^\d+$/.test(concurrency)) throw new Error(`WEB_CONCURRENCY must be a whole number of processes, not "${concurrency}"`);
const processes = Number(concurrency) || availableParallelism();

function primary(): void {
  let stopping = false;
  // Each process knows its index: the instance's background work (video workers, health checks,
  // sweeps) runs in process 0 only, and a replacement takes the index of the process it replaces.
  const index = new Map<number, number>();
  const fork = (i: number) => index.set(cluster.fork({ GATEWAY_PROCESS_INDEX: String(i) }).id, i);
  for (let i = 0; i < processes; i++) fork(i);
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`gateway process ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork(index.get(worker.id) ?? 0);
    index.delete(worker.id);
  });
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Next.js (the dashboard, /api/*), prepared on the first request that needs it: a process that
 * serves only the API never loads it.
 */
async function startNext(): Promise<Handler> {
  const [{ default: next }, { env }] = await Promise.all([import("next"), import("../server/infra/env")]);
  const { PORT: port, HOST: hostname } = env;
  // Started with the project root as its working directory (spawnGateway), from a bundle in the build folder.
  const app = next({ dev: false, dir: process.cwd(), hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const trustProxy = env.TRUST_PROXY === "true";
  return (req, res) => {
    // Overwritten on every request, so a client cannot set it: sign-in throttling counts by it.
    req.headers["x-gateway-client-ip"] = clientIp(req, trustProxy);
    // Next.js drops Content-Length on streamed route handler answers: a route states the length
    // of its body in `x-content-length` (stored videos) and it goes out as Content-Length.
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => setHeader(name.toLowerCase() === "x-content-length" ? "content-length" : name, value);
    return handle(req, res);
  };
}

async function serve(): Promise<void> {
  // Loaded here, not at the top: the cluster's primary process only forks and watches.
  const [{ env }, { isDataPlanePath, serveDataPlane }, { leaseBook }, { startBackground }] = await Promise.all([
    import("../server/infra/env"),
    import("../server/transport/node/data-plane"),
    import("../server/ledger/credit-leases"),
    import("../server/background"),
  ]);
  // The instance's background work runs here, not from Next.js's instrumentation hook (Next.js
  // may never be loaded in this process); the hook sees this and does nothing.
  process.env.GATEWAY_BACKGROUND_OWNER = "gateway-server";
  startBackground();
  let nextHandler: Promise<Handler> | undefined;
  const toNext: Handler = async (req, res) => {
    nextHandler ??= startNext().catch((err: unknown) => {
      nextHandler = undefined; // tried again on the next request
      throw err;
    });
    return (await nextHandler)(req, res);
  };

  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    const work = isDataPlanePath(pathname) ? serveDataPlane(req, res, pathname, q < 0 ? "" : url.slice(q + 1)) : toNext(req, res);
    work.catch((err: unknown) => {
      console.error("request failed:", err);
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  const { PORT: port, HOST: hostname } = env;
  server.listen(port, hostname, () => console.log(`Gateway server ${process.pid} listening on http://${hostname}:${port}`));

  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, () => {
      server.close();
      server.closeAllConnections();
      // Unused credit leases go back to their workspaces now rather than when they expire (30 s).
      const timeout = new Promise((resolve) => setTimeout(resolve, 2000).unref());
      void Promise.race([leaseBook().giveBackAll(), timeout]).finally(() => process.exit(0));
    });
  }
}

if (cluster.isPrimary && processes > 1) primary();
else await serve();
