// The dashboard (Next.js) in one process of an instance. Next.js holds 50-80 MB in a process that
// loads it, so only the first process does: it also listens on a Unix socket in a directory of
// its own (mode 0700), and the other processes pass each request outside /v1 there (the hop is
// a local socket, kept alive, ~0.2 ms; the dashboard's requests are few). The answer, streamed
// or not, comes back as it is written.
//
// The client's address and the X-Forwarded-* headers are settled by the process that took the
// connection (where the socket is), as Next.js would have settled them there; the first process
// believes them only on this socket, which no other user of the machine can open.
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerOptions, type ServerResponse } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Where the other processes of this instance find the first one's dashboard (set by the first, inherited by them). */
export const DASHBOARD_SOCKET_ENV = "GATEWAY_DASHBOARD_SOCKET";

/**
 * Headers of one connection, never passed on a hop (`expect`: the process that took the
 * connection answered its 100 Continue already).
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer", "proxy-authenticate", "proxy-authorization", "expect"]);

/** How long a kept-alive socket to the first process stays unused: below its server's keep-alive timeout (65 s), so it never closes one as it is reused. */
const IDLE_SOCKET_MS = 30_000;

/**
 * In the first process: serves `handle` (the dashboard's requests as they come from the other
 * processes) on a Unix socket, whose path goes to the processes it starts (DASHBOARD_SOCKET_ENV).
 * The socket's directory is removed when the process exits.
 */
export async function listenForPeers(handle: Handler, options: ServerOptions): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "gateway-dashboard-"));
  const socketPath = path.join(dir, "next.sock");
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const server = createServer(options, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      server.unref();
      process.env[DASHBOARD_SOCKET_ENV] = socketPath;
      resolve(socketPath);
    });
  });
}

/**
 * The X-Forwarded-* headers Next.js would have set from the connection itself (base-server.ts:
 * it keeps any already there). A client's own are gone by now unless a trusted proxy set them.
 */
function forwardedFromConnection(req: IncomingMessage): void {
  const socket = req.socket as IncomingMessage["socket"] & { encrypted?: boolean };
  req.headers["x-forwarded-proto"] ??= socket.encrypted ? "https" : "http";
  if (socket.remoteAddress) req.headers["x-forwarded-for"] ??= socket.remoteAddress;
}

/**
 * In another process: a handler that passes the request to the first process's dashboard socket
 * and its answer back. `prepare` removes what a client may not set (the same as the first
 * process does to its own connections' requests) before the connection's facts are added.
 */
export function forwardToDashboard(socketPath: string, prepare: (req: IncomingMessage) => void): Handler {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_SOCKET_MS });
  return (req, res) =>
    new Promise<void>((resolve) => {
      prepare(req);
      forwardedFromConnection(req);
      const headers: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
      // Once the answer is whole (or failed): what the client still sends is read and dropped, as
      // node:http does for a handler that never read it (a 413 answered on Content-Length alone),
      // so that its connection carries its next request; the inner request, unfinished, is dropped.
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        if (!req.complete) {
          req.unpipe(inner);
          req.resume();
          if (!inner.writableFinished) inner.destroy();
        }
        resolve();
      };
      const inner = request({ socketPath, agent, method: req.method, path: req.url, headers }, (answer) => {
        res.statusCode = answer.statusCode ?? 502;
        if (answer.statusMessage) res.statusMessage = answer.statusMessage;
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
        }
        res.flushHeaders();
        answer.pipe(res);
        answer.once("end", finish);
        answer.on("error", () => {
          res.destroy();
          finish();
        });
      });
      // `on`, not `once`: a socket can fail again after the first error, and an error without a listener would end the process.
      inner.on("error", () => {
        if (done) return;
        if (!res.headersSent) {
          res.statusCode = 502;
          res.setHeader("content-type", "application/json");
          res.setHeader("connection", "close");
          res.end(JSON.stringify({ error: { message: "The dashboard is not answering; try again in a moment.", type: "server_error", code: "dashboard_unavailable", param: null } }));
        } else if (!res.writableFinished) res.destroy();
        finish();
      });
      // The client went away before the answer ended (a closed page, a stopped stream): the inner request ends too.
      res.once("close", () => {
        if (!res.writableFinished) inner.destroy();
      });
      req.pipe(inner);
    });
}
