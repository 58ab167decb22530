// multipart/form-data calls to OpenAI-compatible nodes (audio transcriptions and translations,
// image edits and variations): the same pools, timeouts and failure classes as JSON calls.
import { FormData } from "undici";
import { post, type UpstreamResponse, type UpstreamTarget } from "../http";

export { FormData };

/** POSTs a multipart form; resolves once the node's status and headers arrived (its first byte). */
export function postMultipart(target: UpstreamTarget, path: string, form: FormData, signal?: AbortSignal): Promise<UpstreamResponse> {
  return post(target, path, form, { accept: "application/json, text/plain" }, signal);
}
