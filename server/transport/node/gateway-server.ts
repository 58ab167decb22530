// The gateway's HTTP server, as `npm start` runs it: on every core (WEB_CONCURRENCY processes,
// default the number of cores, one port). The first process accepts the connections and hands
// them out in turn to itself and the others (process-group.ts); each serves /v1 and /health from
// the lean node:http data plane over the contract (data-plane.ts), and every other path (the
// dashboard, /api/*) from Next.js. The build bundles it into <build folder>/gateway/gateway-server.mjs
// (scripts/lib/build.ts), which is what runs.
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { availableParallelism } from "node:os";
import { clientIp } from "./client-ip";
import { DASHBOARD_SOCKET_ENV, forwardToDashboard, listenForPeers } from "./dashboard-process";
import { LIVE, ProcessGroup, READY, receiveConnections } from "./process-group";
import { capRequestsPerAddress } from "./requests-per-address";

// Read without the server's env module (and zod), which the serving code loads below.
function wholeNumber(name: string, fallback: string): number {
  const value = process.env[name]?.trim() || fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number, not "${value}"`);
  return Number(value);
}
const processes = wholeNumber("WEB_CONCURRENCY", "0") || availableParallelism();
/** This process's place in the instance: 0 for the first, which the others were started by. */
const index = wholeNumber("GATEWAY_PROCESS_INDEX", "0");
const first = !(index > 0 && typeof process.send === "function");
/** Metrics on a port of their own (server/infra/env.ts METRICS_PORT), 0: none. */
const metricsPort = wholeNumber("METRICS_PORT", "0");
const metricsHost = process.env.METRICS_HOST?.trim() || "127.0.0.1";
/** How often a serving process says it answered calls (LIVE), when it did. */
const LIVE_REPORT_MS = 250;
/** After its drain, a process needs a moment to end what is left and give its leases back. */
const EXIT_MARGIN_MS = 5000;

/** A few lines of the first process, in the form of the processes' log (server/infra/telemetry/log.ts). */
function say(level: "info" | "error", msg: string): void {
  const json = (process.env.LOG_FORMAT ?? (process.stdout.isTTY ? "pretty" : "json")) === "json";
  const line = json ? JSON.stringify({ level, time: new Date().toISOString(), pid: process.pid, msg }) : `${level.toUpperCase()} (${process.pid}): ${msg}`;
  (level === "error" ? process.stderr : process.stdout).write(`${line}\n`);
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Next.js (the dashboard, /api/*), prepared on the first request that needs it: a process that
 * serves only the API never loads it. Only the first process of an instance does; the others
 * pass such requests to it (dashboard-process.ts). The handler's `fromPeer`: the request came
 * from another process of the instance, which removed the headers a client may not set already.
 */
async function startNext(): Promise<(req: IncomingMessage, res: ServerResponse, fromPeer: boolean) => Promise<void>> {
  const [{ default: next }, { env }, { PROXY_HEADERS }, { HOST_CONTENT_LENGTH }] = await Promise.all([
    import("next"),
    import("../../infra/env"),
    import("./data-plane"),
    import("../next/binary"),
  ]);
  const { PORT: port, HOST: hostname } = env;
  // Started with the project root as its working directory (spawnGateway), from a bundle in the build folder.
  const app = next({ dev: false, dir: process.cwd(), hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  say("info", `Dashboard (Next.js) loaded in process ${index}`);
  const trustProxy = env.TRUST_PROXY === "true";
  return (req, res, fromPeer) => {
    // Without a trusted proxy, the X-Forwarded-* headers are whatever a client chose: removed, so
    // Next.js sets them from the connection itself (next-auth and route handlers read them).
    if (!trustProxy && !fromPeer) for (const name of PROXY_HEADERS) delete req.headers[name];
    // Next.js drops Content-Length on route handler answers: a route states the length of a stored
    // file under HOST_CONTENT_LENGTH (the dashboard's videos) and it goes out as Content-Length.
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => setHeader(name.toLowerCase() === HOST_CONTENT_LENGTH ? "content-length" : name, value);
    return handle(req, res);
  };
}

/** node:http's request limits, from the environment (server/infra/env.ts). */
function serverOptions(env: { HEADERS_TIMEOUT_MS: number; REQUEST_TIMEOUT_MS: number }): ServerOptions {
  const requestTimeout = env.REQUEST_TIMEOUT_MS;
  // node:http refuses a headers timeout longer than the whole request's.
  const headersTimeout = requestTimeout > 0 && env.HEADERS_TIMEOUT_MS > requestTimeout ? requestTimeout : env.HEADERS_TIMEOUT_MS;
  // Timeouts are only looked for every connectionsCheckingInterval (30 s by default): often
  // enough that a request is cut at most a quarter of its timeout late.
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 120_000);
  return {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(shortest / 4))),
    // node:http keeps the first of two Authorization headers and drops the second; joined, the
    // dispatcher sees both and refuses the ambiguity (transport/call-input.ts credentialOf).
    joinDuplicateHeaders: true,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function serve(): Promise<void> {
  const [{ env }, { answerClientError, endOpenCalls, isDataPlanePath, PROXY_HEADERS, refuseConnection, refuseRequest, serveDataPlane }, { leaseBook }, { usageWriter }, { requestLogWriter }, background, telemetry] = await Promise.all([
    import("../../infra/env"),
    import("./data-plane"),
    import("../../ledger/credit-leases"),
    import("../../ledger/usage-writer"),
    import("../../request-log/log-writer"),
    import("../../background"),
    loadTelemetry(),
  ]);
  const { startBackground, stopBackground, startSpoolReplay } = background;
  // The other processes (the first starts them, and gathers their metrics).
  // The batches this process runs (BATCH_PROCESS=false) give way to live calls as a batch process's do.
  const inlineBatches = first && env.BATCH_WORKERS > 0 && env.BATCH_PROCESS === "false";
  const onLive = inlineBatches ? (await import("../../batches/live-pace")).noteLiveTraffic : undefined;
  const group = first ? new ProcessGroup(say, telemetry.onPeerMessage, onLive) : undefined;
  await telemetry.start(group);
  // Usage that a process killed before committing it left in its spool is committed before this one serves.
  await startSpoolReplay();
  // The instance's background work runs here, not from Next.js's instrumentation hook (Next.js
  // may never be loaded in this process); the hook sees this and does nothing.
  process.env.GATEWAY_BACKGROUND_OWNER = "gateway-server";
  startBackground();
  let nextHandler: ReturnType<typeof startNext> | undefined;
  const nextHere = async (req: IncomingMessage, res: ServerResponse, fromPeer: boolean) => {
    nextHandler ??= startNext().catch((err: unknown) => {
      nextHandler = undefined; // tried again on the next request
      throw err;
    });
    return (await nextHandler)(req, res, fromPeer);
  };

  let draining = false;
  const trustProxy = env.TRUST_PROXY === "true";
  // The dashboard: the first process serves it (to the others too, over a local socket), the others pass it there.
  const dashboardSocket = first ? undefined : process.env[DASHBOARD_SOCKET_ENV];
  const toNext: Handler = dashboardSocket
    ? forwardToDashboard(dashboardSocket, (req) => {
        if (!trustProxy) for (const name of PROXY_HEADERS) delete req.headers[name];
      })
    : (req, res) => nextHere(req, res, false);
  if (first && processes > 1) {
    // Without the socket (no writable temporary directory), each process serves the dashboard itself, as before.
    await listenForPeers((req, res) => nextHere(req, res, true), serverOptions(env)).catch((err: unknown) =>
      telemetry.log.warn({ err }, "the dashboard's local socket could not be opened: every process will load Next.js for its own dashboard requests"),
    );
  }
  // Calls under /v1 answered lately: the instance's batch process gives way to them
  // (server/batches/live-pace.ts). Told at most every LIVE_REPORT_MS, by the first process
  // directly, by the others through it.
  let liveCalls = 0;
  if (env.BATCH_WORKERS > 0) {
    setInterval(() => {
      if (!liveCalls) return;
      liveCalls = 0;
      if (group) group.live();
      else if (process.connected) process.send!({ type: LIVE }, undefined, {}, () => undefined);
    }, LIVE_REPORT_MS).unref();
  }
  const route = (req: IncomingMessage, res: ServerResponse) => {
    // Overwritten on every request, so a client cannot set it: sign-in throttling counts by it,
    // and the request log records it.
    req.headers["x-gateway-client-ip"] = clientIp(req, trustProxy);
    // While draining, a request that came on an open connection is served, and its connection closed after it.
    if (draining) res.setHeader("connection", "close");
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    if (pathname.startsWith("/v1/")) liveCalls++;
    const work =
      pathname === "/metrics"
        ? telemetry.serveMetrics(req, res)
        : isDataPlanePath(pathname)
          ? serveDataPlane(req, res, pathname, q < 0 ? "" : url.slice(q + 1))
          : toNext(req, res);
    work.catch((err: unknown) => {
      telemetry.log.error({ err, path: pathname }, "request failed");
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  };
  // MAX_CONNECTIONS_PER_IP: open connections per client address, counted by the first process
  // for the whole instance (at accept, below); behind a trusted proxy, whose connections carry
  // every client's requests, the requests in flight per forwarded address in each process instead.
  const perAddress = env.MAX_CONNECTIONS_PER_IP;
  const server = createServer(serverOptions(env), trustProxy && perAddress > 0 ? capRequestsPerAddress(perAddress, route, refuseRequest) : route);
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerClientError);
  // Connections come from the process group, not from a listen() of this server: its tracking of
  // connections (request timeouts, closing idle ones) starts on "listening", so it is told so.
  server.emit("listening");

  // The connections this process serves.
  const open = new Set<Socket>();
  let allClosed: (() => void) | undefined;
  const adopt = (socket: Socket) => {
    if (draining || (env.MAX_CONNECTIONS > 0 && open.size >= env.MAX_CONNECTIONS)) return void socket.destroy();
    // Handed over by the first process's listener (or over IPC): node:http's own sockets get
    // TCP_NODELAY at accept, these do not, and with Nagle's algorithm a stream's second write
    // waits for the client's delayed acknowledgement of the first (40 ms).
    socket.setNoDelay(true);
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      if (!open.size) allClosed?.();
    });
    server.emit("connection", socket);
    socket.resume();
  };

  // A refused connection is logged at most once a minute: when every client comes through one
  // load balancer or proxy that was not declared with TRUST_PROXY, the cap refuses them all.
  let warnedAt = 0;
  const refuseWithWarning = (socket: Socket) => {
    if (Date.now() - warnedAt > 60_000) {
      warnedAt = Date.now();
      telemetry.log.warn(
        `Connections from ${socket.remoteAddress} refused: MAX_CONNECTIONS_PER_IP (${perAddress}) reached. Behind a load balancer or reverse proxy, set TRUST_PROXY=true (or raise MAX_CONNECTIONS_PER_IP).`,
      );
    }
    refuseConnection(socket);
  };

  const { PORT: port, HOST: hostname } = env;
  if (group) {
    group.start(processes);
    // With BATCH_PROCESS=true, batches run in a process of their own, after the serving ones, at a
    // lower CPU priority (serveBatches), started while there are batches to run
    // (server/batches/demand.ts); by default this process runs them (server/background.ts).
    if (env.BATCH_WORKERS > 0 && env.BATCH_PROCESS === "true") void runBatchesOnDemand(group, processes, telemetry.log);
    const listening = () => telemetry.log.info(`Gateway server ${process.pid} listening on http://${hostname}:${port} (${processes} processes)`);
    group.listen(port, hostname, adopt, listening, trustProxy ? undefined : { max: perAddress, refuse: refuseWithWarning });
  } else {
    receiveConnections(adopt);
    // The first process is gone (killed): this one stops too, and the instance is started again by its supervisor.
    process.on("disconnect", () => void shutdown("the first process exited"));
    process.send!({ type: READY });
    telemetry.log.info(`Gateway server ${process.pid} (process ${index}) ready`);
  }

  /**
   * SIGTERM: no new connections; idle keep-alive connections close at once, busy ones after
   * their answer; in-flight calls, streams, background responses and video renders get
   * SHUTDOWN_DRAIN_MS to finish. Then what is still open is ended (streams with an error frame),
   * the usage of every answered call is committed, unused credit leases go back to their
   * workspaces (rather than when they expire, 30 s), and the process exits; the first process
   * after the others.
   */
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    draining = true;
    const deadline = Date.now() + env.SHUTDOWN_DRAIN_MS;
    telemetry.log.info(`Gateway server ${process.pid}: ${signal}, draining for up to ${env.SHUTDOWN_DRAIN_MS} ms`);
    const others = group?.stop(env.SHUTDOWN_DRAIN_MS + EXIT_MARGIN_MS);
    const closed = new Promise<void>((resolve) => (open.size ? (allClosed = resolve) : resolve()));
    server.closeIdleConnections();
    const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
    const stopped = stopBackground(deadline);
    await Promise.race([Promise.all([closed, stopped]), sleep(deadline - Date.now())]);
    const cut = endOpenCalls();
    if (cut) telemetry.log.warn(`Gateway server ${process.pid}: drain time over, ${cut} calls still open were ended`);
    // The frames just written go out before the connections are closed.
    await Promise.race([closed, sleep(cut ? 500 : 0)]);
    clearInterval(closeIdle);
    server.closeAllConnections();
    for (const socket of open) socket.destroy();
    await Promise.race([stopped, sleep(2000)]);
    // The usage of every answered call is committed (what cannot be, for want of a database, stays in the spool).
    await usageWriter().drain(Date.now() + 5000);
    await Promise.race([requestLogWriter().flush().catch(() => undefined), sleep(2000)]);
    await Promise.race([leaseBook().giveBackAll(), sleep(2000)]);
    await Promise.race([telemetry.stop(), sleep(2000)]);
    await others;
    process.exit(0);
  };
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void shutdown(sig));
}

/** Metrics, traces and logs of a serving process. */
async function loadTelemetry() {
  const [{ registerCollectors }, { metrics }, { listenForMetrics }, tracing, logExport, { serveMetrics }, { logger }, instance] = await Promise.all([
    import("../../telemetry-collectors"),
    import("../../infra/telemetry/metrics"),
    import("../../infra/telemetry/metrics-port"),
    import("../../infra/telemetry/tracing"),
    import("../../infra/telemetry/log-export"),
    import("./metrics-endpoint"),
    import("../../infra/telemetry/log"),
    import("../../infra/telemetry/instance-metrics"),
  ]);
  const log = logger();
  return {
    log,
    serveMetrics,
    onPeerMessage: instance.onPeerMessage,
    async start(group: ProcessGroup | undefined) {
      metrics();
      registerCollectors();
      await tracing.startTracing();
      await logExport.startLogExport();
      if (!group) return instance.answerFirstProcess();
      // The first process gathers every process's figures: for METRICS_PORT, and for a process asked on /metrics.
      instance.gatherFrom(() => group.others());
      if (metricsPort) listenForMetrics(metricsHost, metricsPort, instance.allMetrics, (line) => log.info(line));
    },
    async stop() {
      await tracing.stopTracing();
      await logExport.stopLogExport();
      log.flush();
    },
  };
}

/**
 * Starts the instance's batch process when a batch is created (on any instance) or found waiting
 * (now, and every DEMAND_POLL_MS); it ends itself once idle (serveBatches), and is looked for
 * again at once then, in case a batch came meanwhile.
 */
async function runBatchesOnDemand(group: ProcessGroup, index: number, log: { error: (obj: object, msg: string) => void }): Promise<void> {
  const { batchWorkWaiting, onBatchQueued, DEMAND_POLL_MS } = await import("../../batches/demand");
  const start = () => group.startWorker(index, "batches", check);
  const check = () => {
    batchWorkWaiting().then((waiting) => waiting && start(), (err: unknown) => log.error({ err }, "could not look for batches waiting"));
  };
  await onBatchQueued(start, check).catch((err: unknown) => log.error({ err }, "could not listen for new batches"));
  check();
  setInterval(check, DEMAND_POLL_MS).unref();
}

/**
 * An instance's batch process: serves no connection, runs BATCH_WORKERS batches at the CPU
 * priority BATCH_NICE (server/background.ts startBatchProcess), and ends with the first process.
 */
async function serveBatches(): Promise<void> {
  const [{ env }, { usageWriter }, { leaseBook }, background, telemetry, { noteLiveTraffic }] = await Promise.all([
    import("../../infra/env"),
    import("../../ledger/usage-writer"),
    import("../../ledger/credit-leases"),
    import("../../background"),
    loadTelemetry(),
    import("../../batches/live-pace"),
  ]);
  process.on("message", (message: { type?: string } | null) => {
    if (message?.type === LIVE) noteLiveTraffic();
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    telemetry.log.info(`Gateway batch process ${process.pid}: ${signal}, letting the lines in flight finish`);
    // No new line starts; the lines in flight get the drain time, and their batches are resumed by another worker.
    await Promise.race([background.stopBackground(Date.now() + env.SHUTDOWN_DRAIN_MS), sleep(env.SHUTDOWN_DRAIN_MS + 2000)]);
    await usageWriter().drain(Date.now() + 5000);
    await Promise.race([leaseBook().giveBackAll(), sleep(2000)]);
    await Promise.race([telemetry.stop(), sleep(2000)]);
    process.exit(0);
  };
  // Listened for first: a first process killed while this one still starts (its database gone
  // with it, say) must not leave it waiting forever.
  process.on("disconnect", () => void shutdown("the first process exited"));
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void shutdown(sig));
  if (!process.connected) return void shutdown("the first process exited");
  await telemetry.start(undefined);
  await background.startSpoolReplay();
  await background.startBatchProcess();
  telemetry.log.info(`Gateway batch process ${process.pid} (process ${index}) runs ${env.BATCH_WORKERS} batch(es) at a time at nice ${env.BATCH_NICE}`);
  // Once it has run nothing for BATCH_PROCESS_IDLE_SECONDS and no batch waits anywhere, it ends
  // (exit code 0: not replaced; the first process starts another when a batch comes).
  const { idleForMs } = await import("../../batches/workers");
  const { batchWorkWaiting } = await import("../../batches/demand");
  const idle = setInterval(() => {
    if (stopping || idleForMs() < env.BATCH_PROCESS_IDLE_SECONDS * 1000) return;
    void batchWorkWaiting().then(
      (waiting) => {
        if (waiting || stopping || idleForMs() < env.BATCH_PROCESS_IDLE_SECONDS * 1000) return;
        clearInterval(idle);
        void shutdown("idle: no batch to run");
      },
      () => undefined,
    );
  }, 5000);
  idle.unref();
}

await (process.env.GATEWAY_PROCESS_ROLE === "batches" && !first ? serveBatches() : serve());
