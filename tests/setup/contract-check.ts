// Runs in every test worker: every answer the test gateway gives to /v1/*, /health or
// /openapi.json (through global fetch, which the official openai SDK uses too) is checked against
// the gateway's own OpenAPI document: the route and method must be documented, the status must be
// one the document lists for them, the content type one it lists for that status, and a JSON body
// must validate against its schema (ajv, JSON Schema 2020-12). The body the test reads is left
// alone (JSON answers are read from a clone; streams and bytes are not read at all). Each test
// file fails in afterAll if any answer broke the document, listing them.
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { appendFileSync } from "node:fs";
import { afterAll, expect, inject } from "vitest";

type Json = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Json>>; components: { responses?: Record<string, Json> } };

const baseUrl = inject("baseUrl");
const ORIGINAL_FETCH = Symbol.for("gateway.tests.originalFetch");
const DOC_ID = "https://gateway.test/openapi.json";
const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];

const holder = globalThis as unknown as Record<symbol, typeof fetch | undefined>;
// Wrapped once per test file: always around the real fetch, never around an earlier wrapper.
const realFetch: typeof fetch = (holder[ORIGINAL_FETCH] ??= globalThis.fetch);

const violations: string[] = [];
const pending = new Set<Promise<void>>();
let checked = 0;

type Checker = { doc: Doc; routes: { template: string; regex: RegExp }[]; validator: (pointer: string) => ValidateFunction };
let checker: Promise<Checker> | undefined;

const pointerOf = (...parts: string[]) => "#/" + parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

async function loadChecker(base: string): Promise<Checker> {
  const res = await realFetch(`${base}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const doc = (await res.json()) as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("binary", true);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    let v = compiled.get(pointer);
    if (!v) compiled.set(pointer, (v = ajv.compile({ $ref: DOC_ID + pointer })));
    return v;
  };
  // Paths without parameters are matched first (`/v1/images/edits` before `/v1/images/files/{name}`).
  const routes = Object.keys(doc.paths)
    .map((template) => ({
      template,
      regex: new RegExp("^" + template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+") + "$"),
    }))
    .sort((a, b) => Number(a.template.includes("{")) - Number(b.template.includes("{")));
  return { doc, routes, validator };
}

function inScope(url: URL, base: URL): boolean {
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  const sameServer = url.port === base.port && loopback.includes(url.hostname) && loopback.includes(base.hostname);
  if (url.origin !== base.origin && !sameServer) return false;
  return url.pathname === "/health" || url.pathname === "/openapi.json" || url.pathname === "/v1" || url.pathname.startsWith("/v1/");
}

const mediaType = (res: Response) => (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => `    ${e.instancePath || "(root)"} ${e.message}${Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`)
    .join("\n");
}

/** What the document says of an answer: the response object (followed through $ref) and where it is. */
function responseFor(c: Checker, method: string, path: string, status: number): { response: Json; pointer: string } | string {
  const route = c.routes.find((r) => r.regex.test(path));
  const error = (name: string) => ({ response: c.doc.components.responses![name]!, pointer: pointerOf("components", "responses", name) });
  const authFailure = (ops: Json[]) => (status === 401 || status === 402) && ops.some((op) => !Array.isArray(op.security) || op.security.length > 0);
  if (!route) {
    // An unknown path: 404 unknown_url, once the credential passed.
    if (status === 404) return error("NotFound");
    if (status === 401) return error("Unauthorized");
    if (status === 402) return error("PaymentRequired");
    return `no documented path matches, and the status is not 401, 402 or 404`;
  }
  const item = c.doc.paths[route.template]!;
  const ops = HTTP_METHODS.filter((m) => item[m]).map((m) => item[m]!);
  if (method === "OPTIONS") return status === 204 ? { response: { content: {} }, pointer: "" } : `OPTIONS ${route.template} answered ${status}, not 204`;
  const op = item[(method === "HEAD" ? "get" : method).toLowerCase()];
  if (!op) {
    if (status === 405) return error("MethodNotAllowed");
    if (authFailure(ops)) return error(status === 401 ? "Unauthorized" : "PaymentRequired");
    return `${method} is not documented on ${route.template}, and the status is not 405`;
  }
  const responses = op.responses as Record<string, Json>;
  let response = responses[String(status)];
  let pointer = pointerOf("paths", route.template, (method === "HEAD" ? "get" : method).toLowerCase(), "responses", String(status));
  if (!response) return `status ${status} is not documented for ${method} ${route.template} (documented: ${Object.keys(responses).join(", ")})`;
  if (typeof response.$ref === "string") {
    const name = response.$ref.split("/").pop()!;
    response = c.doc.components.responses![name]!;
    pointer = pointerOf("components", "responses", name);
  }
  return { response, pointer };
}

async function check(method: string, url: URL, res: Response, body: Promise<string> | null): Promise<void> {
  const c = await (checker ??= loadChecker(new URL(baseUrl).origin));
  checked++;
  // CONTRACT_COVERAGE=<file>: one line per answer checked, to see which documented answers the tests reach.
  if (process.env.CONTRACT_COVERAGE) appendFileSync(process.env.CONTRACT_COVERAGE, `${method} ${url.pathname} ${res.status} ${mediaType(res)}\n`);
  const where = `${method} ${url.pathname}${url.search} -> ${res.status}`;
  const found = responseFor(c, method, url.pathname, res.status);
  if (typeof found === "string") return void violations.push(`${where}: ${found}`);
  const content = (found.response.content ?? {}) as Record<string, Json>;
  const type = mediaType(res);
  if (!type) {
    if (Object.keys(content).length && method !== "HEAD") violations.push(`${where}: no content type (documented: ${Object.keys(content).join(", ")})`);
    return;
  }
  if (!content[type]) return void violations.push(`${where}: content type ${type} is not documented (documented: ${Object.keys(content).join(", ") || "none"})`);
  if (type !== "application/json" || !body) return;
  let text: string;
  try {
    text = await body;
  } catch {
    return; // the test aborted the call, or the connection broke: the test sees that itself
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return void violations.push(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  const validate = c.validator(`${found.pointer}/content/application~1json/schema`);
  if (!validate(value)) violations.push(`${where}: the body does not match the document\n${formatErrors(validate.errors)}\n    body: ${text.slice(0, 400)}`);
}

if (baseUrl) {
  const base = new URL(baseUrl);
  globalThis.fetch = async function fetchCheckedAgainstTheDocument(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const res = await realFetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!inScope(url, base)) return res;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    // Read from a clone only when it is JSON (streams and bytes are never read here, so a test
    // that stops reading them early still closes the connection as it means to).
    const body = method !== "HEAD" && mediaType(res) === "application/json" && res.body ? res.clone().text() : null;
    body?.catch(() => undefined);
    const task = check(method, url, res, body).catch((err: unknown) => void violations.push(`${method} ${url.pathname}: the check failed: ${String(err)}`));
    pending.add(task);
    void task.finally(() => pending.delete(task));
    return res;
  };

  afterAll(async () => {
    while (pending.size) await Promise.all([...pending]);
    expect(violations, `answers that break the OpenAPI document (${violations.length} of ${checked} checked):\n${violations.join("\n")}`).toEqual([]);
  });
}
