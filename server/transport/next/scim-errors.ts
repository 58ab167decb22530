// The one mapping from a failure to SCIM's error answer (RFC 7644 §3.12):
// {schemas:[…Error], status:"400", scimType, detail}, as application/scim+json. A SCIM refusal
// keeps its status and scimType; a service's GatewayError keeps its status (a taken e-mail is a
// uniqueness conflict); anything else is logged with the request id and answered as a 500 that
// says nothing more.
import { ScimError, type ScimType } from "../../identity/scim/scim-error";
import { SCHEMA } from "../../identity/scim/scim-schemas";
import { GatewayError } from "../../kernel/errors";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("http");

export const SCIM_CONTENT_TYPE = "application/scim+json";

export function scimJson(status: number, body: unknown, requestId: string, extra: Record<string, string> = {}): Response {
  return new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: { ...(body === null ? {} : { "content-type": SCIM_CONTENT_TYPE }), "cache-control": "no-store", "x-request-id": requestId, ...extra },
  });
}

function scimTypeOf(err: GatewayError): ScimType | null {
  if (err.status === 409 && err.code === "email_taken") return "uniqueness";
  if (err.status === 400) return "invalidValue";
  return null;
}

export function scimErrorResponse(err: unknown, requestId: string): Response {
  let status: number;
  let scimType: ScimType | null;
  let detail: string;
  if (err instanceof ScimError) {
    ({ status, scimType } = err);
    detail = err.message;
  } else if (err instanceof GatewayError) {
    status = err.status;
    scimType = scimTypeOf(err);
    detail = err.message;
  } else {
    log.error({ err, requestId }, "scim request failed");
    status = 500;
    scimType = null;
    detail = `Internal error (request ${requestId}).`;
  }
  const body = { schemas: [SCHEMA.error], status: String(status), ...(scimType ? { scimType } : {}), detail };
  const extra: Record<string, string> = status === 401 ? { "www-authenticate": 'Bearer realm="scim"' } : {};
  return scimJson(status, body, requestId, extra);
}
