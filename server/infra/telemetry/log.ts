// The gateway's log: structured JSON lines (pino) for machines, readable lines on a terminal
// (pino-pretty, in-process). Secrets never go in: callers log ids, never credentials or bodies,
// and the fields that could hold one are redacted whatever a caller passes.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { env } from "../env";

/**
 * Fields that would carry a secret, redacted whatever a caller passes. Named paths only: pino's
 * wildcard paths cost about 40 µs per line, four times the line itself.
 */
const REDACT = [
  "authorization",
  "cookie",
  "apiKey",
  "password",
  "secret",
  "token",
  '["payment-signature"]',
  '["x-api-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
  "headers.cookie",
  'headers["payment-signature"]',
];

function create(): Logger {
  const options: pino.LoggerOptions = {
    level: env.LOG_LEVEL,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: "[redacted]" },
    formatters: { level: (label) => ({ level: label }) },
  };
  const readable = (env.LOG_FORMAT ?? (process.stdout.isTTY ? "pretty" : "json")) === "pretty";
  if (readable) {
    return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", destination: logFd() }));
  }
  return pino(options, bufferedStdout());
}

const logFd = () => (env.LOG_DESTINATION === "stderr" ? 2 : 1);

/** How long a line waits at most in the buffer of a quiet process. */
const FLUSH_MS = 500;

/**
 * Standard output, written asynchronously in blocks: a line joins a buffer written once it holds
 * LOG_BUFFER_BYTES, or FLUSH_MS after a quiet moment, so a busy process makes one write (one trip
 * through libuv's thread pool) per few dozen lines, not one per request. What is buffered goes
 * out on exit (pino flushes it); a process killed with SIGKILL loses its last FLUSH_MS of lines.
 */
function bufferedStdout(): pino.DestinationStream {
  const dest = pino.destination({ dest: logFd(), sync: false, minLength: env.LOG_BUFFER_BYTES });
  // sonic-boom keeps what it buffered in `_len`; its flush writes (an empty block) even when
  // nothing waits, and throws once the stream was ended at exit.
  const state = dest as unknown as { _len?: number; _ending?: boolean; destroyed?: boolean };
  const flushWaiting = () => {
    if ((state._len ?? 1) > 0 && !state._ending && !state.destroyed) dest.flush();
  };
  if (env.LOG_BUFFER_BYTES > 0) setInterval(flushWaiting, FLUSH_MS).unref();
  return dest;
}

const shared = globalThis as unknown as { gatewayLog?: Logger };

/** The process's logger (one per process, whichever copy of this module loads it). */
export function logger(): Logger {
  return (shared.gatewayLog ??= create());
}

/** A logger whose lines all carry `component`. */
export function logFor(component: string): Logger {
  return logger().child({ component });
}
