// The node:http host of the dispatcher: /v1 and /health answered without Next.js's per-request
// pipeline. `npm start` runs it in every gateway process (scripts/gateway-server.ts); every other
// path goes to Next.js.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { IncomingCall } from "../call";
import { dispatch } from "../dispatch";
import { writeReply } from "./write-reply";

/** Whether the data plane answers this path (the rest is the dashboard's, served by Next.js). */
export function isDataPlanePath(pathname: string): boolean {
  return pathname === "/health" || pathname === "/openapi.json" || pathname === "/v1" || pathname.startsWith("/v1/");
}

function toCall(req: IncomingMessage, pathname: string, search: string): IncomingCall {
  return {
    method: req.method ?? "GET",
    path: pathname,
    query: new URLSearchParams(search),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    body: () => req,
    selfOrigin: () => `http://${req.headers.host ?? "localhost"}`,
  };
}

export async function serveDataPlane(req: IncomingMessage, res: ServerResponse, pathname: string, search: string): Promise<void> {
  const reply = await dispatch(toCall(req, pathname, search));
  await writeReply(res, reply, req.method === "HEAD");
}
