// The node:http host of the dispatcher: /v1 and /health answered without Next.js's per-request
// pipeline. `npm start` runs it in every gateway process (gateway-server.ts); every other path
// goes to Next.js.
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { posix } from "node:path";
import type { Duplex } from "node:stream";
import { isContractPath } from "../../contract/routes";
import { errors, GatewayError } from "../../kernel/errors";
import type { IncomingCall } from "../call";
import { bodyReadInFull } from "../request-body";
import { dispatch, observeEnd } from "../dispatch";
import { errorReply } from "../error-adapter";
import { newRequestId } from "../../kernel/ids";
import { cutStreams, writeReply } from "./write-reply";
import { serveMcp } from "../mcp/mcp-entry";
import { MCP_PATH } from "../mcp/mcp-path";

const ours = (pathname: string) => pathname === MCP_PATH || isContractPath(pathname);
/** `//`, or a `.` or `..` segment. */
const UNNORMALIZED = /\/\/|\/\.\.?(\/|$)/;

/**
 * Whether the data plane answers this path (the rest is the dashboard's, served by Next.js). A
 * path that becomes one of ours once `//`, `.` and `..` are resolved (`//v1/models`,
 * `/v1/../health`) is ours as it is: it matches no route, so it is a 404 in the error shape, where
 * Next.js would redirect it.
 */
export function isDataPlanePath(pathname: string): boolean {
  return ours(pathname) || (UNNORMALIZED.test(pathname) && ours(posix.normalize(pathname)));
}

/**
 * Headers a reverse proxy sets about the original request. Any client can send them, so they are
 * believed only behind a proxy that is trusted to overwrite them (TRUST_PROXY): the dispatcher's
 * public origin checks it (origin.ts), and the dashboard's requests lose them (gateway-server.ts).
 */
export const PROXY_HEADERS = new Set(["x-forwarded-host", "x-forwarded-proto", "x-forwarded-for", "x-forwarded-port", "forwarded"]);

function toCall(req: IncomingMessage, pathname: string, search: string): IncomingCall {
  return {
    method: req.method ?? "GET",
    path: pathname,
    query: new URLSearchParams(search),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    body: () => req,
    selfOrigin: () => `http://${req.headers.host ?? "localhost"}`,
    // Set by the production server on every request before it is routed (a client's own is overwritten).
    clientIp: () => String(req.headers["x-gateway-client-ip"] ?? "unknown"),
  };
}

/** Calls being answered by this process, until their answer ended. */
const inFlight = new Set<ServerResponse>();

export async function serveDataPlane(req: IncomingMessage, res: ServerResponse, pathname: string, search: string): Promise<void> {
  inFlight.add(res);
  res.once("close", () => inFlight.delete(res));
  const reply = pathname === MCP_PATH ? await serveMcp(toCall(req, pathname, search)) : await dispatch(toCall(req, pathname, search));
  // Answered before its body arrived in full (413, or refused before the body mattered): what
  // the client still sends would be read as the next request on this connection, or the client
  // may stop sending and wait. The connection ends with the answer instead. (A body read to its
  // declared length is whole even while node:http has not marked the message complete yet: a
  // fast answer, such as a cache hit, keeps its connection.)
  if (!req.complete && !bodyReadInFull(req) && !res.headersSent) {
    res.setHeader("connection", "close");
    closeWithoutReset(req.socket);
  }
  await writeReply(res, reply, req.method === "HEAD");
  observeEnd(reply);
}

/** After an early answer, how long what the client still sends is read at most, and after how long a silence the connection is closed. */
const LINGER_MS = 5000;
const LINGER_QUIET_MS = 1000;

/**
 * A connection closed while the client's bytes still arrive is reset, and a reset can make the
 * client drop the answer it has not read yet (a client busy sending a large body has not). So
 * node:http's close after the answer (its call to destroySoon) becomes a lingering one: the
 * server's side is ended with the answer, and what still arrives is read and dropped until the
 * client closes its side, falls silent for LINGER_QUIET_MS, or LINGER_MS have passed.
 */
function closeWithoutReset(socket: Socket): void {
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    let quiet: NodeJS.Timeout;
    const close = () => {
      clearTimeout(quiet);
      clearTimeout(cap);
      socket.destroy();
    };
    const cap = setTimeout(close, LINGER_MS).unref();
    const wait = () => {
      clearTimeout(quiet);
      quiet = setTimeout(close, LINGER_QUIET_MS).unref();
    };
    wait();
    socket.on("data", wait);
    socket.once("end", close);
    socket.once("close", close);
  };
}

/**
 * At the end of a shutdown's drain: every call still open is ended. Streams get an error frame
 * (and [DONE]); calls not answered yet get 503 server_shutting_down. Returns how many were open.
 */
export function endOpenCalls(): number {
  let ended = cutStreams();
  for (const res of inFlight) {
    if (res.headersSent) continue; // a stream (cut above) or a download, ended with its connection
    const reply = errorReply(errors.shuttingDown(), newRequestId());
    res.writeHead(reply.status, { ...reply.headers, connection: "close", "content-length": Buffer.byteLength(reply.body) });
    res.end(reply.body);
    ended++;
  }
  return ended;
}

/** node:http's own refusals, before a request reaches a handler. */
function clientErrorOf(code: string | undefined): GatewayError {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new GatewayError({ status: 431, code: "request_header_fields_too_large", message: `The request's headers exceed ${maxHeaderSize} bytes.` });
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new GatewayError({ status: 413, code: "request_too_large", message: "The request's chunk extensions are too large." });
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new GatewayError({ status: 408, code: "request_timeout", message: "The request was not received in full in time." });
    default:
      return new GatewayError({ status: 400, code: "invalid_http_request", message: "The request is not valid HTTP/1.1 and could not be read." });
  }
}

/**
 * The server's `clientError` handler: a request node:http refuses itself (oversized headers,
 * malformed, too slow to arrive) is answered in the OpenAI error shape, then the connection is
 * closed. Node's default answers with an empty body.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // Nothing can be said on a connection that is gone, or in the middle of another answer.
  if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) return void socket.destroy();
  endWith(socket, clientErrorOf(err.code));
}

/**
 * Writes an error in the one error shape (error-adapter.ts) raw on a connection that has no
 * response object to write it with, and ends the connection.
 */
function endWith(socket: Duplex, error: GatewayError): void {
  const reply = errorReply(error, newRequestId());
  const headers = Object.entries({ ...reply.headers, "content-length": String(Buffer.byteLength(reply.body)), connection: "close" })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\n${headers}\r\n${reply.body}`);
  // Ended rather than destroyed, so the answer is not lost to a reset while the client still
  // sends; a client that never closes its side is cut off after a moment.
  setTimeout(() => socket.destroy(), 1000).unref();
}

const tooManyConnections = (what: string) =>
  new GatewayError({ status: 429, code: "too_many_connections", message: `Too many ${what} from your address (MAX_CONNECTIONS_PER_IP). Close some, or retry later.` });

/**
 * A new connection from an address that holds MAX_CONNECTIONS_PER_IP open connections already
 * (process-group.ts): answered 429 too_many_connections at once, whatever it sends, then closed.
 * What the client sends meanwhile is read and dropped, so that the close does not reset the
 * connection before the client read the answer.
 */
export function refuseConnection(socket: Socket): void {
  socket.on("error", () => socket.destroy()); // a client gone already: nothing to tell
  socket.resume();
  endWith(socket, tooManyConnections("open connections"));
}

/**
 * Behind a trusted proxy, a request from a forwarded address that has MAX_CONNECTIONS_PER_IP
 * requests in flight in this process already: 429 too_many_connections.
 */
export function refuseRequest(res: ServerResponse): void {
  const reply = errorReply(tooManyConnections("requests in flight"), newRequestId());
  res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
  res.end(reply.body);
}
