// Every /v1 path without a route of its own: the declared-but-unserved endpoints (parts 4.2 and
// 4.6 of the API reference) answer 501 not_implemented; other paths 404; a declared path with
// the wrong method 405. The caller is authenticated first, as on every /v1 endpoint.
import { authenticateBearer } from "../authenticate";
import { errors, GatewayError } from "../../kernel/errors";
import { env } from "../../infra/env";
import { parseJson, readBodyBytes } from "./body";
import { errorResponse } from "../error-adapter";
import { newRequestId } from "../respond";
import { METHODS, methodNotAllowed, type Method, type NextHandler } from "./v1-route";

const ID = "[^/]+";
const DECLARED: [RegExp, Method[]][] = [
  [/^conversations$/, ["POST"]],
  [new RegExp(`^conversations/${ID}$`), ["GET", "POST", "DELETE"]],
  [new RegExp(`^conversations/${ID}/items$`), ["GET", "POST"]],
  [/^files$/, ["GET", "POST"]],
  [new RegExp(`^files/${ID}$`), ["GET", "DELETE"]],
  [new RegExp(`^files/${ID}/content$`), ["GET"]],
  [/^batches$/, ["GET", "POST"]],
  [new RegExp(`^batches/${ID}$`), ["GET"]],
  [new RegExp(`^batches/${ID}/cancel$`), ["POST"]],
  [/^fine_tuning\/jobs$/, ["GET", "POST"]],
  [new RegExp(`^fine_tuning/jobs/${ID}$`), ["GET"]],
  [new RegExp(`^fine_tuning/jobs/${ID}/(cancel)$`), ["POST"]],
  [new RegExp(`^fine_tuning/jobs/${ID}/(checkpoints|events)$`), ["GET"]],
  [/^moderations$/, ["POST"]],
];

/** The declared methods of a path, or null when the path is not declared at all. */
export function declaredMethods(path: string): Method[] | null {
  const clean = path.replace(/^\/+|\/+$/g, "");
  for (const [pattern, methods] of DECLARED) if (pattern.test(clean)) return methods;
  return null;
}

function handle(method: Method): NextHandler {
  return async (req) => {
    const requestId = newRequestId();
    try {
      await authenticateBearer(req.headers.get("authorization"));
      const path = new URL(req.url).pathname.replace(/^\/v1\/?/, "");
      const methods = declaredMethods(path);
      if (!methods) {
        throw new GatewayError({
          status: 404,
          code: "unknown_url",
          type: "invalid_request_error",
          message: `Invalid URL (${method} /v1/${path}). See the API reference for the served endpoints.`,
        });
      }
      if (!methods.includes(method)) return methodNotAllowed(method, methods, requestId);
      // A JSON body is held to the same rules as on served endpoints (size limit, valid JSON).
      if (!req.headers.get("content-type")?.startsWith("multipart/")) {
        const bytes = await readBodyBytes(req, env.MAX_JSON_BODY_BYTES);
        if (bytes.byteLength) parseJson(bytes);
      }
      throw errors.notImplemented();
    } catch (err) {
      return errorResponse(err, requestId);
    }
  };
}

export const v1Fallback = Object.fromEntries(METHODS.map((m) => [m, handle(m)])) as Record<Method, NextHandler>;
