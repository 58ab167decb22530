// The one dispatcher over the contract, hosted by the node:http data plane and by the Next.js
// route handlers alike: request id, route, credential -> principal, the operation's input, its
// tRPC procedure through a server-side caller, and the answer in the OpenAI shapes. Every failure
// is answered by the one error adapter.
import type { AnyOperation } from "../contract/operation";
import { allowedMethods, matchRoute } from "../contract/routes";
import { accessOf, type Access } from "../identity/access";
import { assertPermitted } from "../identity/keys/permissions";
import type { Principal } from "../identity/principal";
import { reportRateLimits } from "../limits/rate-gate";
import { env } from "../infra/env";
import { BinaryBody } from "../kernel/binary-body";
import { errors, GatewayError } from "../kernel/errors";
import { EventStream } from "../kernel/event-stream";
import { createCaller } from "../trpc/root";
import { authenticateBearer, credentialOf } from "./authenticate";
import { jsonReply, SSE_HEADERS, type IncomingCall, type Reply } from "./call";
import { operationInput } from "./call-input";
import { finishHeaders, isPreflight, preflightReply } from "./answer-headers";
import { errorReply } from "./error-adapter";
import { parseJson, readBodyBytes } from "./request-body";
import { newRequestId } from "./respond";
import { x402Enabled } from "../payments/x402/config";
import { x402Principal } from "../payments/x402/principal";
import { CallObservation } from "./call-observation";

type Procedure = (input: unknown) => Promise<unknown>;

/** `chat.createCompletion` -> the caller's procedure of that path. */
function procedureOf(caller: ReturnType<typeof createCaller>, op: AnyOperation): Procedure {
  const [group, name] = op.id.split(".") as [string, string];
  return (caller as unknown as Record<string, Record<string, Procedure>>)[group]![name]!;
}

function methodNotAllowed(method: string, allowed: string[], requestId: string): Reply {
  const reply = errorReply(
    new GatewayError({ status: 405, code: "method_not_allowed", message: `Method ${method} is not allowed on this path. Allowed: ${allowed.join(", ")}.` }),
    requestId,
  );
  reply.headers.allow = allowed.join(", ");
  return reply;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<string> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** What a procedure returned, as an answer. */
export function toReply(result: unknown, requestId: string, trailers?: string[]): Reply {
  if (result instanceof EventStream) return { kind: "sse", headers: { ...SSE_HEADERS, "x-request-id": requestId }, events: result.events, ...result.options, trailers };
  if (result instanceof BinaryBody) return { kind: "binary", headers: { "content-type": result.contentType, "x-request-id": requestId, ...result.headers }, body: result };
  if (isAsyncIterable(result)) return { kind: "sse", headers: { ...SSE_HEADERS, "x-request-id": requestId }, events: result, named: false, done: true, trailers };
  return jsonReply(result, requestId);
}

/** HEAD is served wherever GET is. */
const withHead = (allowed: string[]): string[] => (allowed.includes("GET") ? [...allowed, "HEAD"] : allowed);

/** Every method a /v1 path may have, for a preflight to a path that is not one of ours. */
const ANY_METHOD = ["GET", "HEAD", "POST", "DELETE", "OPTIONS"];

/** Answers one request. Never throws: failures become error answers. */
export async function dispatch(call: IncomingCall): Promise<Reply> {
  const startedAt = performance.now();
  const requestId = newRequestId();
  // Headers the answer carries whatever its outcome (the caller's rate limits, filled in by
  // admission), and what the caller may do, resolved once after its credential.
  const answerHeaders: Record<string, string> = {};
  const seen: { access: Promise<Access> | null } = { access: null };
  const observation = new CallObservation(requestId, call, startedAt);
  const reply = await observation.within(() => answer(call, requestId, answerHeaders, seen, observation));
  // Every answer to a caller with rate limits carries them, also those not admitted through them.
  if (seen.access && !Object.keys(answerHeaders).some((h) => h.startsWith("x-ratelimit-"))) {
    const access = await seen.access.catch(() => null);
    if (access?.limitScope) reportRateLimits(access.limitScope, access.limits, answerHeaders);
  }
  Object.assign(reply.headers, answerHeaders);
  finishHeaders(reply, call, startedAt);
  reply.observation = observation;
  return reply;
}

async function answer(
  call: IncomingCall,
  requestId: string,
  answerHeaders: Record<string, string>,
  seen: { access: Promise<Access> | null },
  observation: CallObservation,
): Promise<Reply> {
  try {
    if (call.method === "OPTIONS") {
      observation.route = "options";
      const allowed = allowedMethods(call.path);
      // A browser's preflight carries no credential: it is answered for any path, and the real
      // request then gets what it deserves (with CORS headers, so the page can read the error).
      if (isPreflight(call)) return preflightReply(call, allowed ? withHead(allowed).concat("OPTIONS") : ANY_METHOD, requestId);
      if (allowed) return { kind: "empty", status: 204, headers: { allow: withHead(allowed).concat("OPTIONS").join(", "), "x-request-id": requestId } };
    }
    const match = matchRoute(call.method, call.path);
    if (match.kind === "served" || match.kind === "unserved") observation.operation(match.op);
    let principal: Principal | null = null;
    // The credential is checked before anything else on every /v1 path (unknown ones too).
    const open = (match.kind === "served" && match.op.tier === "none") || (match.kind === "method_not_allowed" && match.open);
    const spends = match.kind === "served" && match.op.tier === "billed" && match.op.pricing.kind !== "free";
    if (!open) {
      const credential = credentialOf(call.header("authorization"), call.header("x-api-key"));
      // No credential (or the placeholder key `x402`, for SDKs that insist on one), and x402 is
      // on: an operation x402 callers may call is paid for (or read) with x402.
      principal = await observation.phase("authenticate", () =>
        !credential && match.kind === "served" && match.op.x402 && x402Enabled()
          ? x402Principal(match.op, call.header("payment-signature"), call.selfOrigin() + call.path)
          : authenticateBearer(credential ?? call.header("authorization") ?? null, spends),
      );
      observation.caller(principal);
      // A restricted key (or a token it minted) is refused an operation group it was not given, before its body is read.
      if (match.kind === "served" || match.kind === "unserved") assertPermitted(principal, match.op.permission, match.op.method, match.op.path);
      if (principal.kind !== "user") {
        seen.access = accessOf(principal);
        seen.access.catch(() => undefined); // awaited later, by admission or for the headers
      }
    }
    switch (match.kind) {
      case "not_found":
        throw new GatewayError({
          status: 404,
          code: "unknown_url",
          message: `Invalid URL (${call.method} ${call.path}). See the API reference for the served endpoints.`,
        });
      case "method_not_allowed":
        return methodNotAllowed(call.method, withHead(match.allowed), requestId);
      case "unserved":
        // A JSON body is held to the same rules as on served endpoints (size limit, valid JSON).
        if (match.op.body === "json") {
          const bytes = await readBodyBytes(call.body(), env.MAX_JSON_BODY_BYTES, call.header("content-length"));
          if (bytes.byteLength) parseJson(bytes);
        }
        throw errors.notImplemented();
      case "served": {
        const trailers: string[] = [];
        const input = await operationInput(match.op, call, match.params);
        observation.requestedModel((input as { model?: unknown } | null)?.model);
        const caller = createCaller({ requestId, principal, answerHeaders, trailers, access: seen.access ?? undefined, observer: observation });
        const result = await procedureOf(caller, match.op)(input);
        return toReply(result, requestId, trailers);
      }
    }
  } catch (err) {
    return errorReply(err, requestId);
  }
}
