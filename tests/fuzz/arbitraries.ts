// Requests for the fuzz test, generated from the contract's declarations: each /v1 operation's
// method and path (its parameters filled with hostile strings), and bodies that are either
// arbitrary JSON, the operation's own fields with values of any type, or broken bytes. Paths also
// come raw (`..`, `//`, bad percent-escapes), since the server decides about them before routing.
import fc from "fast-check";
import { z } from "zod";
import { operations } from "../../server/contract";

export type FuzzRequest = { method: string; path: string; headers: Record<string, string>; body: Buffer | null; label: string };

/** Models of the built-in node, so that some requests get past model resolution into deeper checks. */
const MODELS = ["local-chat-sim", "local-embed-ngram", "local-tts", "local-stt", "local-image", "local-video", "no-such-model"];

const hostileSegment = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("%zz", "%", "%0", "%00", "%ED%A0%80", "%C0%AF", "..", ".", "%2e%2e", "%2F", "video-%00", "resp_\u0000", "a b", "ü", "😀", "x".repeat(600)),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
);

const scalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom("", "\u0000", "\ud800", "NaN", "-1", "1e309"));
const anyJson = fc.jsonValue({ maxDepth: 4 });
const deepJson = fc.integer({ min: 50, max: 5000 }).map((n) => "[".repeat(n) + "]".repeat(n));

/** The field names of an operation's input schema, when it is an object (best effort). */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s; i++) {
    const def = (s as { _zod?: { def?: { type?: string; innerType?: unknown; in?: unknown; shape?: Record<string, unknown> } } })._zod?.def;
    if (!def) break;
    if (def.shape) return Object.keys(def.shape);
    if ((s as { shape?: Record<string, unknown> }).shape) return Object.keys((s as { shape: Record<string, unknown> }).shape);
    s = def.innerType ?? def.in;
  }
  return [];
}

function fieldBody(fields: string[]) {
  const names = fields.length ? fc.constantFrom(...fields) : fc.string({ maxLength: 8 });
  return fc
    .dictionary(names, fc.oneof(scalar, anyJson), { maxKeys: 6 })
    .chain((obj) => fc.oneof(fc.constant(obj), fc.constantFrom(...MODELS).map((model) => ({ ...obj, model }))));
}

const jsonBytes = (value: unknown) => Buffer.from(JSON.stringify(value));

function bodyFor(fields: string[]): fc.Arbitrary<{ body: Buffer | null; contentType?: string }> {
  return fc.oneof(
    { weight: 4, arbitrary: fieldBody(fields).map((v) => ({ body: jsonBytes(v), contentType: "application/json" })) },
    { weight: 2, arbitrary: anyJson.map((v) => ({ body: jsonBytes(v), contentType: "application/json" })) },
    { weight: 1, arbitrary: deepJson.map((d) => ({ body: Buffer.from(`{"model":"local-chat-sim","messages":${d}}`), contentType: "application/json" })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ body: Buffer.from(b), contentType: "application/json" })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 100 }), fc.constantFrom("text/plain", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded"))
        .map(([text, contentType]) => ({ body: Buffer.from(text), contentType })),
    },
    { weight: 2, arbitrary: multipartBody(fields) },
    { weight: 1, arbitrary: fc.constant({ body: null }) },
  );
}

function multipartBody(fields: string[]): fc.Arbitrary<{ body: Buffer; contentType: string }> {
  const boundary = "fuzzboundary";
  const part = fc.record({
    name: fc.oneof(fc.constantFrom(...(fields.length ? fields : ["file"]), "file", "image", "mask", "input_reference", "model"), fc.constant(null)),
    filename: fc.option(fc.constantFrom("a.wav", "a.png", "x", "")),
    value: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...MODELS), fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("latin1"))),
  });
  return fc.record({ parts: fc.array(part, { maxLength: 5 }), cut: fc.boolean() }).map(({ parts, cut }) => {
    const text =
      parts
        .map((p) => {
          const disposition = ["form-data", p.name === null ? null : `name="${p.name}"`, p.filename === null ? null : `filename="${p.filename}"`].filter(Boolean).join("; ");
          return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n${p.value}\r\n`;
        })
        .join("") + (cut ? "" : `--${boundary}--\r\n`);
    return { body: Buffer.from(text, "latin1"), contentType: `multipart/form-data; boundary=${boundary}` };
  });
}

const queryString = fc.array(fc.tuple(fc.constantFrom("after", "limit", "order", "stream", "starting_after", "variant", "x"), fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("%zz", "%00", "-1", "999999999999", "asc"))), { maxLength: 3 });

type Target = { method: string; path: string; fields: string[] };
const TARGETS: Target[] = operations.map((op) => ({ method: op.method, path: op.path, fields: fieldsOf(op.input as z.ZodType | undefined) }));

/**
 * What can go on an HTTP request line: characters outside printable ASCII are percent-encoded
 * (a lone surrogate as the bytes a careless client would send), `%` sequences stay as they are,
 * so malformed escapes reach the server.
 */
function onRequestLine(text: string): string {
  let out = "";
  for (const ch of text) {
    if (/^[\x21-\x7e]$/.test(ch)) out += ch;
    else {
      try {
        out += encodeURIComponent(ch);
      } catch {
        out += "%ED%A0%80";
      }
    }
  }
  return out;
}

const declared: fc.Arbitrary<FuzzRequest> = fc
  .record({
    target: fc.constantFrom(...TARGETS),
    // Mostly the declared method (null), so bodies reach validation; sometimes another one.
    method: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS") }),
    segment: hostileSegment,
    query: queryString,
  })
  .chain((r) => bodyFor(r.target.fields).map((body) => ({ ...r, body })))
  .map(({ target, method, segment, query, body }) => {
    // The declared path with every {param} replaced by the hostile segment.
    const path = target.path.replace(/\{[^}]+\}/g, segment);
    const search = query.length ? "?" + query.map(([k, v]) => `${k}=${v}`).join("&") : "";
    const headers: Record<string, string> = body.contentType ? { "content-type": body.contentType } : {};
    const m = method ?? target.method;
    // HEAD goes without a body: its answer has none, so the client could not tell a reply to the
    // body's bytes (read by the server as a next request) from a protocol error.
    return { method: m, path: onRequestLine(path + search), headers, body: m === "HEAD" ? null : body.body, label: `${m} ${target.path}` };
  });

const rawPaths: fc.Arbitrary<FuzzRequest> = fc
  .constantFrom("/v1//models", "/v1/../health", "/v1/models/..", "//v1/models", "/v1/./models", "/v1/models/%zz", "/v1/%", "/v1/chat/completions/", "/v1", "/v1/models?%zz=1", "/health/..")
  .map((path) => ({ method: "GET", path, headers: {}, body: null, label: `GET ${path} (raw)` }));

/** A request to one of the declared operations, or to a raw path the server must refuse cleanly. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof({ weight: 9, arbitrary: declared }, { weight: 1, arbitrary: rawPaths });
