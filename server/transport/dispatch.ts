// The dispatcher, hosted by the node:http data plane and by the Next.js route handlers alike: the
// HTTP around the pipeline (server/pipeline/pipeline.ts). It gives the request an id, answers
// preflights, finds the route, reads the credential and the operation's input where the
// declaration says, and turns what the pipeline returned (or threw) into the answer, with the
// headers of the call's outcome. Every failure is answered by the one error adapter.
import { allowedMethods, matchRoute, type RouteMatch } from "../contract/routes";
import { BinaryBody } from "../kernel/binary-body";
import type { CallOutcome } from "../kernel/call-outcome";
import { GatewayError, type Dialect } from "../kernel/errors";
import { EventStream } from "../kernel/event-stream";
import { newRequestId } from "../kernel/ids";
import { answerText } from "../kernel/answer-text";
import { runCall } from "../pipeline/pipeline";
import type { IncomingCall, Reply, ReplyHeaders } from "./call";
import { credentialOf, operationInput } from "./call-input";
import { CallObservation } from "./call-observation";
import { addOutcomeHeaders, finishHeaders, isPreflight, loadPaymentEncoding, preflightReply } from "./answer-headers";
import { errorReply } from "./error-adapter";

/** The status an answer goes out with. */
export function statusOf(reply: Reply): number {
  if (reply.kind === "json" || reply.kind === "empty") return reply.status;
  return reply.kind === "binary" ? (reply.body.options.status ?? 200) : 200;
}

/** Tells the request's telemetry that its answer ends; returns the write of its log row to the spool. */
export function observeEnd(reply: Reply): Promise<void> | undefined {
  return reply.observation?.end(statusOf(reply));
}

const SSE_HEADERS: ReplyHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
};

function jsonReply(body: unknown, requestId: string): Reply {
  return { kind: "json", status: 200, headers: { "content-type": "application/json", "x-request-id": requestId }, body: answerText(body) };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<string> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** What the pipeline returned, as an answer; a stream ends with the frames of the call's outcome. */
function toReply(result: unknown, requestId: string, outcome: CallOutcome, dialect: Dialect): Reply {
  if (result instanceof EventStream) return { kind: "sse", headers: { ...SSE_HEADERS, "x-request-id": requestId }, events: result.events, ...result.options, outcome, dialect };
  if (result instanceof BinaryBody) return { kind: "binary", headers: { "content-type": result.contentType, "x-request-id": requestId }, body: result };
  if (isAsyncIterable(result)) return { kind: "sse", headers: { ...SSE_HEADERS, "x-request-id": requestId }, events: result, named: false, done: true, outcome };
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
  const outcome: CallOutcome = {};
  const observation = new CallObservation(requestId, call, startedAt);
  observation.outcome = outcome;
  const reply = await observation.within(() => answer(call, requestId, outcome, observation));
  await observation.captureAnswer(reply);
  addOutcomeHeaders(outcome, reply.headers);
  finishHeaders(reply, call, startedAt);
  reply.observation = observation;
  return reply;
}

/** The answer to a request that no served operation matches, once the pipeline knows its caller. */
async function notServed(call: IncomingCall, match: Exclude<RouteMatch, { kind: "served" }>): Promise<never> {
  switch (match.kind) {
    case "not_found":
      throw new GatewayError({
        status: 404,
        code: "unknown_url",
        message: `Invalid URL (${call.method} ${call.path}). See the API reference for the served endpoints.`,
      });
    case "method_not_allowed": {
      const allowed = withHead(match.allowed);
      throw new GatewayError({
        status: 405,
        code: "method_not_allowed",
        message: `Method ${call.method} is not allowed on this path. Allowed: ${allowed.join(", ")}.`,
        detail: { allow: allowed },
      });
    }
  }
}

async function answer(call: IncomingCall, requestId: string, outcome: CallOutcome, observation: CallObservation): Promise<Reply> {
  // The shape of its answers and errors: the operation's (Anthropic's for /v1/messages), else OpenAI's.
  let dialect: Dialect = "openai";
  try {
    if (call.method === "OPTIONS") {
      observation.route = "options";
      const allowed = allowedMethods(call.path);
      // A browser's preflight carries no credential: it is answered for any path, and the real
      // request then gets what it deserves (with CORS headers, so the page can read the error).
      if (isPreflight(call)) return preflightReply(call, allowed ? withHead(allowed).concat("OPTIONS") : ANY_METHOD, requestId);
      if (allowed) return { kind: "empty", status: 204, headers: { allow: withHead(allowed).concat("OPTIONS").join(", "), "x-request-id": requestId } };
    }
    const authorization = call.header("authorization");
    const match = matchRoute(call.method, call.path);
    if (match.kind === "served" && match.op.dialect) dialect = match.op.dialect;
    const result = await runCall({
      requestId,
      match,
      credential: {
        bearer: () => credentialOf(authorization, call.header("x-api-key")),
        authorization,
        payment: call.header("payment-signature"),
        resource: () => call.selfOrigin() + call.path,
      },
      readInput: (op, params) => operationInput(op, call, params),
      notServed: (match) => notServed(call, match),
      header: call.header,
      outcome,
      observer: observation,
    });
    await loadPaymentEncoding(outcome, null);
    return toReply(result, requestId, outcome, dialect);
  } catch (err) {
    observation.failed(err);
    await loadPaymentEncoding(outcome, err instanceof GatewayError ? err.detail : null);
    return errorReply(err, requestId, dialect);
  }
}
