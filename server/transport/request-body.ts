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

export function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
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

/** Walks a parsed JSON body (without recursion): every string and key checked, nesting bounded. */
export function checkJsonText(root: unknown): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: "", depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      const problem = badText(value);
      if (problem) throw errors.invalidRequest(`\`${path || "body"}\` ${problem}.`, path || null, "invalid_value");
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw errors.invalidRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (at \`${path}\`).`, path || null, "invalid_value");
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], path: pathOf(path, i), depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      checkText(key, pathOf(path, key));
      stack.push({ value: child, path: pathOf(path, key), depth: depth + 1 });
    }
  }
}
