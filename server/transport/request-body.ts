// Request bodies: read as streams with a byte limit, so an oversized body is refused (413)
// without being buffered whole; parsed; and their text checked (below).
import type { Readable } from "node:stream";
import { errors, GatewayError } from "../kernel/errors";

function tooLarge(limit: number): GatewayError {
  return new GatewayError({
    status: 413,
    code: "request_too_large",
    message: `The request body exceeds the limit of ${limit} bytes.`,
  });
}

/** Set on a body stream once all of its declared bytes were read (`IncomingMessage.complete` may still be false then). */
const READ_IN_FULL = Symbol("readInFull");

/** Whether a request's body was read to its declared end, though node:http may not have marked the message complete yet. */
export const bodyReadInFull = (body: Readable): boolean => (body as Readable & { [READ_IN_FULL]?: true })[READ_IN_FULL] === true;

/**
 * The body at once when node:http already holds all of it (it came with the head, as small
 * bodies do) and nothing read it yet: no flowing mode, events and ticks for one chunk.
 */
function received(body: Readable, limit: number, declaredLength: string | undefined): Buffer | null {
  const declared = Number(declaredLength ?? NaN);
  if (!(declared > 0) || declared > limit || body.readableFlowing !== null || body.readableObjectMode || body.readableLength !== declared) return null;
  const whole = body.read() as Buffer;
  body.resume(); // so that the stream ends as one read in full does
  (body as Readable & { [READ_IN_FULL]?: true })[READ_IN_FULL] = true;
  return whole;
}

/**
 * Reads a body up to `limit` bytes. Over the limit, the rest is read and dropped rather than the
 * stream being torn down, so that the client, still sending, gets the 413 (and a host that
 * feeds the stream, like Next.js, is not left writing into a closed one).
 */
export function readBodyBytes(body: Readable, limit: number, declaredLength?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(declaredLength ?? NaN) > limit) {
      body.resume();
      return reject(tooLarge(limit));
    }
    const whole = received(body, limit, declaredLength);
    if (whole) return resolve(whole);
    const chunks: Buffer[] = [];
    let total = 0;
    let failed = false;
    body.on("data", (chunk: Buffer) => {
      if (failed) return;
      total += chunk.byteLength;
      if (total <= limit) return void chunks.push(chunk);
      failed = true;
      chunks.length = 0;
      reject(tooLarge(limit));
    });
    body.once("end", () => failed || resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    body.once("error", () => {
      if (failed) return;
      failed = true;
      reject(new GatewayError({ status: 400, code: "invalid_request", message: "The request body could not be read (the connection broke off)." }));
    });
  });
}

/** The body's JSON (its text: a Buffer as UTF-8), or 400 invalid_json. */
export function parseJson(body: Buffer | string): unknown {
  try {
    return JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
  } catch {
    throw new GatewayError({
      status: 400,
      code: "invalid_json",
      message:
        "We could not parse the JSON body of your request. The body must be valid JSON and sent with Content-Type: application/json.",
    });
  }
}

// Text a request carries must be storable and re-serialisable: PostgreSQL's text refuses NUL and
// ill-formed UTF-16 (a lone surrogate, which JSON's \ud800 escape can produce), and a document
// nested thousands deep overflows the stack of whatever walks it next (schema validation,
// JSON.stringify on the way to a node). Such input is a 400 naming where it is, before any work.

/** Deepest nesting of arrays and objects accepted in a JSON body. */
export const MAX_JSON_DEPTH = 64;

type WellFormed = { isWellFormed(): boolean };

function badText(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character (\\u0000)";
  if (!(s as unknown as WellFormed).isWellFormed()) return "contains a lone UTF-16 surrogate (not valid Unicode)";
  return null;
}

/** Throws 400 when a text value (a query or form field, a path parameter) cannot be stored as text. */
export function checkText(value: string, param: string): void {
  const problem = badText(value);
  if (problem) throw errors.invalidRequest(`\`${param}\` ${problem}.`, param, "invalid_value");
}

const pathOf = (parent: string, key: string | number) =>
  typeof key === "number" ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

type Problem = { at: (string | number)[]; message: (path: string) => string };

/**
 * The first problem in a parsed JSON value, its path's parts innermost first. Recursive, at most
 * MAX_JSON_DEPTH deep; a path is made only for a problem (a 40 KB body has thousands of values).
 * `strings`: whether its strings and keys can hold a NUL or a lone surrogate at all.
 */
function problemIn(value: unknown, depth: number, strings: boolean): Problem | null {
  if (typeof value === "string") return strings ? textProblem(value) : null;
  if (typeof value !== "object" || value === null) return null;
  if (depth >= MAX_JSON_DEPTH) return { at: [], message: (path) => `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (at \`${path}\`).` };
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  for (const key of keys) {
    const found = (strings && typeof key === "string" ? textProblem(key) : null) ?? problemIn((value as Record<string | number, unknown>)[key], depth + 1, strings);
    if (found) {
      found.at.push(key);
      return found;
    }
  }
  return null;
}

/** A string or key that PostgreSQL's text cannot hold, as the problem named at its path. */
function textProblem(text: string): Problem | null {
  const problem = badText(text);
  return problem ? { at: [], message: (path) => `\`${path || "body"}\` ${problem}.` } : null;
}

/**
 * Checks a parsed JSON body: every string and key, nesting bounded. `text`, the body as it came:
 * a NUL or a lone surrogate can only come from a `\u` escape (JSON refuses a raw control
 * character, and invalid UTF-8 reads as U+FFFD), so a body without one has only its nesting checked.
 */
export function checkJsonText(root: unknown, text?: string): void {
  const found = problemIn(root, 0, text === undefined || text.includes("\\u"));
  if (!found) return;
  const path = found.at.reduceRight<string>((parent, key) => pathOf(parent, key), "");
  throw errors.invalidRequest(found.message(path), path || null, "invalid_value");
}
