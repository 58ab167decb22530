// multipart/form-data calls to OpenAI-compatible nodes (audio transcriptions and translations,
// image edits and variations): the same timeouts and failure classes as JSON calls.
import { FormData, type Dispatcher } from "undici";
import { env } from "../../env";
import { classifyUpstreamError, failureOf, poolFor, type UpstreamResponse, type UpstreamTarget } from "./http";
import { authHeaders } from "./list-models";

export { FormData };

/** POSTs a multipart form; resolves once the node's status and headers arrived (its first byte). */
export async function postMultipart(target: UpstreamTarget, path: string, form: FormData, signal?: AbortSignal): Promise<UpstreamResponse> {
  const url = new URL(`${target.baseUrl}${path}`);
  let res: Dispatcher.ResponseData;
  try {
    res = await poolFor(url.origin).request({
      method: "POST",
      path: url.pathname + url.search,
      headers: { accept: "application/json, text/plain", ...authHeaders(target.apiKey) },
      body: form,
      signal,
      headersTimeout: env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      bodyTimeout: env.UPSTREAM_IDLE_TIMEOUT_MS,
    });
  } catch (err) {
    throw classifyUpstreamError(err);
  }
  if (res.statusCode >= 400) throw await failureOf(res);
  return { status: res.statusCode, headers: res.headers, body: res.body };
}
