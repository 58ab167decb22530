// What a request carries, as the pipeline takes it: its one credential (below), and the input of
// its operation, gathered from where the declaration says: the JSON body or the multipart form,
// the query, the path parameters, named headers and the public origin. Values the gateway sets
// (path parameters, headers, origin) win over body fields of the same name.
import type { AnyOperation, BodySource } from "../contract/operation";
import { env } from "../infra/env";
import { noteBodySize } from "../kernel/body-size";
import { errors, GatewayError } from "../kernel/errors";
import type { IncomingCall } from "./call";
import { readMultipart } from "./multipart";
import { publicOrigin } from "./origin";
import { checkJsonText, checkText, parseJson, readBodyBytes } from "./request-body";

const isMultipart = (call: IncomingCall) => /^multipart\/form-data/i.test(call.header("content-type") ?? "");

async function jsonBody(call: IncomingCall): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(call.body(), env.MAX_JSON_BODY_BYTES, call.header("content-length"));
  const text = bytes.toString("utf8");
  const value = parseJson(text);
  checkJsonText(value, text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw errors.invalidRequest("The request body must be a JSON object.");
  }
  noteBodySize(value, bytes.length);
  return value as Record<string, unknown>;
}

async function formBody(call: IncomingCall, source: Extract<BodySource, { files: readonly string[] }>): Promise<Record<string, unknown>> {
  const form = await readMultipart(call.header("content-type") ?? "", call.header("content-length"), call.body(), {
    files: [...source.files],
    maxFileBytes: source.maxFileBytes(),
  });
  for (const [name, value] of Object.entries(form.fields)) for (const v of Array.isArray(value) ? value : [value]) checkText(v, name);
  return { ...form.fields, ...form.files };
}

function readBody(call: IncomingCall, source: BodySource): Promise<Record<string, unknown>> | Record<string, unknown> {
  switch (source.kind) {
    case "none":
      return {};
    case "json":
      return jsonBody(call);
    case "multipart":
      return formBody(call, source);
    case "json_or_multipart":
      return isMultipart(call) ? formBody(call, source) : jsonBody(call);
  }
}

function decodeParam(name: string, raw: string): string {
  try {
    const value = decodeURIComponent(raw);
    checkText(value, name);
    return value;
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw errors.invalidRequest(`The path parameter \`${name}\` is not valid percent-encoding.`, name);
  }
}

export async function operationInput(op: AnyOperation, call: IncomingCall, params: Record<string, string>): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = await readBody(call, op.body);
  if (op.query) {
    for (const [k, v] of call.query) {
      checkText(v, k);
      input[k] ??= v;
    }
  }
  for (const [name, raw] of Object.entries(params)) input[name] = decodeParam(name, raw);
  if (op.headers) for (const [field, header] of Object.entries(op.headers)) input[field] = call.header(header);
  if (op.origin) input.origin = publicOrigin(call);
  return input;
}

/** The API key a client paying with x402 may pass to an SDK that requires one. */
const X402_PLACEHOLDER = /^Bearer\s+x402\s*$/i;

const ambiguous = (message: string) => new GatewayError({ status: 400, code: "ambiguous_credentials", param: null, message });

/**
 * The one credential a request carries, as an Authorization value (`Bearer <secret>`), or null
 * when it carries none (or only the x402 placeholder). Anthropic-format clients send their key in
 * `x-api-key`, which counts the same. A request naming two credentials is refused (400) rather
 * than served under whichever a proxy or parser happens to keep: two Authorization headers (the
 * data plane's server joins repeated headers with ", ", which no single credential contains), or
 * an Authorization and an x-api-key that name different secrets.
 */
export function credentialOf(authorization: string | undefined, apiKey: string | undefined): string | null {
  if (authorization?.includes(",")) throw ambiguous("The request carries more than one Authorization header. Send exactly one credential.");
  if (apiKey?.includes(",")) throw ambiguous("The request carries more than one x-api-key header. Send exactly one credential.");
  const bearer = authorization?.trim() ? authorization : undefined;
  // `x-api-key: x402` is the placeholder too (for Anthropic-format SDKs that insist on a key).
  const key = apiKey?.trim() && apiKey.trim().toLowerCase() !== "x402" ? apiKey.trim() : undefined;
  if (!key) return bearer && !X402_PLACEHOLDER.test(bearer) ? bearer : null;
  if (bearer && !X402_PLACEHOLDER.test(bearer) && bearer.match(/^Bearer\s+(\S+)\s*$/i)?.[1] !== key) {
    throw ambiguous("The Authorization and x-api-key headers name different credentials. Send exactly one.");
  }
  return `Bearer ${key}`;
}
