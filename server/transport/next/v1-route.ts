// The REST adapter: turns a Next.js route into a call of a tRPC procedure. It authenticates,
// parses, creates the caller, and answers in the OpenAI shapes; every method a route does not
// serve answers 405 in the error shape.
import { authenticateBearer } from "../authenticate";
import type { Principal } from "../../identity/principal";
import { GatewayError } from "../../kernel/errors";
import { createCaller, type Caller } from "../../trpc/root";
import { readJsonBody } from "./body";
import { errorResponse } from "../error-adapter";
import { jsonResponse, newRequestId } from "../respond";
import { sseResponse } from "./sse";
import { EventStream } from "../../kernel/event-stream";
import { BinaryBody } from "../../kernel/binary-body";
import { binaryResponse } from "./binary";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export type Method = (typeof METHODS)[number];

export type RouteContext = { params: Promise<Record<string, string | string[]>> };
export type NextHandler = (req: Request, ctx: RouteContext) => Promise<Response>;

export type HandlerContext = {
  req: Request;
  requestId: string;
  principal: Principal | null;
  params: Record<string, string | string[]>;
  caller: Caller;
  /** The JSON body, read with the size limit; malformed JSON is a 400. */
  json: () => Promise<unknown>;
};
/** A handler returns data to send as JSON (200), an async iterable of SSE payloads, a BinaryBody, or a ready Response. */
export type Handler = (ctx: HandlerContext) => Promise<unknown>;
export type RouteOptions = { auth?: "api_key" | "none" };

export function methodNotAllowed(method: string, allowed: string[], requestId: string): Response {
  const res = errorResponse(
    new GatewayError({
      status: 405,
      code: "method_not_allowed",
      message: `Method ${method} is not allowed on this path. Allowed: ${allowed.join(", ")}.`,
    }),
    requestId,
  );
  res.headers.set("allow", allowed.join(", "));
  return res;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<string> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

function serve(handler: Handler, options: RouteOptions): NextHandler {
  return async (req, routeCtx) => {
    const requestId = newRequestId();
    try {
      const principal = options.auth === "none" ? null : await authenticateBearer(req.headers.get("authorization"));
      const result = await handler({
        req,
        requestId,
        principal,
        params: (await routeCtx?.params) ?? {},
        caller: createCaller({ requestId, principal }),
        json: () => readJsonBody(req),
      });
      if (result instanceof Response) {
        result.headers.set("x-request-id", requestId);
        return result;
      }
      if (result instanceof EventStream) return sseResponse(result.events, requestId, result.options);
      if (result instanceof BinaryBody) return binaryResponse(result, requestId);
      if (isAsyncIterable(result)) return sseResponse(result, requestId);
      return jsonResponse(result, requestId);
    } catch (err) {
      return errorResponse(err, requestId);
    }
  };
}

/** Builds every method export of a route file: `export const { GET, POST, ... } = v1Route({...})`. */
export function v1Route(handlers: Partial<Record<Method, Handler>>, options: RouteOptions = {}): Record<Method, NextHandler> {
  const allowed = Object.keys(handlers);
  if (handlers.GET && !handlers.HEAD) allowed.push("HEAD");
  const out = {} as Record<Method, NextHandler>;
  for (const method of METHODS) {
    const handler = handlers[method];
    if (handler) out[method] = serve(handler, options);
    else if (method === "HEAD" && handlers.GET) {
      const get = serve(handlers.GET, options);
      out.HEAD = async (req, ctx) => {
        const res = await get(req, ctx);
        await res.body?.cancel(); // a stored file or a node's stream must not stay open
        return new Response(null, { status: res.status, headers: res.headers });
      };
    } else if (method === "OPTIONS") {
      out.OPTIONS = async () =>
        new Response(null, { status: 204, headers: { allow: [...allowed, "OPTIONS"].join(", "), "x-request-id": newRequestId() } });
    } else {
      out[method] = async (req) => {
        const requestId = newRequestId();
        try {
          // The credential is checked before anything else, as on every /v1 endpoint.
          if (options.auth !== "none") await authenticateBearer(req.headers.get("authorization"));
          return methodNotAllowed(method, allowed, requestId);
        } catch (err) {
          return errorResponse(err, requestId);
        }
      };
    }
  }
  return out;
}
