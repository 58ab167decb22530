import { randomBase62 } from "../kernel/ids";

export function newRequestId(): string {
  return `req_${randomBase62(24)}`;
}

export function jsonResponse(body: unknown, requestId: string, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": requestId },
  });
}
