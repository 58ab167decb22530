// The /scim/v2 host: a Next.js route handler for every method. It checks the workspace's bearer
// token, reads a JSON body of at most 1 MB (SCIM's own media type or plain JSON), runs the
// endpoint from the table (identity/scim/scim-contract.ts) and answers application/scim+json,
// errors included (scim-errors.ts). The data plane never sees /scim: it is not one of its paths.
import { ScimError, scimErrors } from "../../identity/scim/scim-error";
import { runScim } from "../../identity/scim/scim-contract";
import { verifyScimToken } from "../../identity/scim/scim-tokens";
import { scimBaseUrl, SCIM_PATH } from "../../identity/scim/scim-urls";
import { newRequestId } from "../../kernel/ids";
import { scimErrorResponse, scimJson } from "./scim-errors";

const MAX_BODY_BYTES = 1024 * 1024;
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

async function readJson(req: Request): Promise<unknown> {
  if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw new ScimError(413, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type && type !== "application/scim+json" && type !== "application/json") {
    throw new ScimError(415, "Send the body as application/scim+json (or application/json).");
  }
  const bytes = await req.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw new ScimError(413, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (bytes.byteLength === 0) throw scimErrors.invalidSyntax("The request needs a JSON body.");
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw scimErrors.invalidSyntax("The body is not valid JSON.");
  }
}

/** A path segment, decoded; a malformed escape names no resource. */
function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ScimError(404, `No SCIM resource at ${JSON.stringify(raw)}.`);
  }
}

function bearer(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** The origin the client addressed (its Host header), for resources' locations when no public origin is configured. */
function requestOrigin(req: Request, url: URL): string {
  const host = req.headers.get("host");
  return host && HOST.test(host) ? `${url.protocol}//${host}` : url.origin;
}

async function handle(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const token = bearer(req);
    const caller = token ? await verifyScimToken(token) : null;
    if (!caller) throw scimErrors.unauthorized();
    const url = new URL(req.url);
    const rest = url.pathname.startsWith(SCIM_PATH) ? url.pathname.slice(SCIM_PATH.length) : url.pathname;
    const segments = rest.split("/").filter(Boolean).map(segment);
    const method = req.method.toUpperCase();
    const body = WITH_BODY.has(method) ? await readJson(req) : null;
    const ctx = { workspaceId: caller.workspaceId, tokenId: caller.tokenId, baseUrl: scimBaseUrl(requestOrigin(req, url)) };
    const answer = await runScim(ctx, { method, segments, params: url.searchParams, body });
    const location = answer.status === 201 ? (answer.body as { meta?: { location?: string } }).meta?.location : undefined;
    return scimJson(answer.status, answer.body, requestId, location ? { location } : {});
  } catch (err) {
    return scimErrorResponse(err, requestId);
  }
}

export const scimHandlers = { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle };
