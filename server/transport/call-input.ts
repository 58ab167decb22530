// The input of an operation, gathered from where its declaration says: the JSON body or the
// multipart form, the query, the path parameters, named headers and the public origin. Values the
// gateway sets (path parameters, headers, origin) win over body fields of the same name.
import type { AnyOperation, BodySource } from "../contract/operation";
import { env } from "../infra/env";
import { errors, GatewayError } from "../kernel/errors";
import type { IncomingCall } from "./call";
import { checkJsonText, checkText } from "./input-text";
import { readMultipart } from "./multipart";
import { publicOrigin } from "./origin";
import { parseJson, readBodyBytes } from "./request-body";

const isMultipart = (call: IncomingCall) => /^multipart\/form-data/i.test(call.header("content-type") ?? "");

async function jsonBody(call: IncomingCall): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(call.body(), env.MAX_JSON_BODY_BYTES, call.header("content-length"));
  const value = parseJson(bytes);
  checkJsonText(value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw errors.invalidRequest("The request body must be a JSON object.");
  }
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
