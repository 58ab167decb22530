// A call to a Bedrock node's runtime: a JSON body POSTed (and signed, http.ts), its failure told
// in the gateway's terms (failures.ts); a JSON answer read, or a stream's body handed on.
import { post, type UpstreamResponse, type UpstreamTarget } from "../http";
import { UpstreamFailure } from "../upstream-failure";
import { mapped } from "./failures";

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };
const STREAM_HEADERS = { "content-type": "application/json", accept: "application/vnd.amazon.eventstream" };

/** POSTs a body for a stream; resolves once the node's first byte arrived. */
export function postForStream(target: UpstreamTarget, path: string, body: unknown, signal?: AbortSignal): Promise<UpstreamResponse> {
  return mapped(post(target, path, JSON.stringify(body), STREAM_HEADERS, signal));
}

/** POSTs a body for a JSON answer, as the node sent it (the Messages passthrough reads it itself). */
export function postForAnswer(target: UpstreamTarget, path: string, body: unknown, signal?: AbortSignal): Promise<UpstreamResponse> {
  return mapped(post(target, path, JSON.stringify(body), JSON_HEADERS, signal));
}

/** POSTs a body and reads the JSON answer; an unreadable one is a protocol failure (another node may still be tried). */
export async function postBedrockJson<T>(target: UpstreamTarget, path: string, body: unknown, what: string, signal?: AbortSignal): Promise<T> {
  const res = await postForAnswer(target, path, body, signal);
  try {
    return JSON.parse(await res.body.text()) as T;
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new UpstreamFailure("protocol", `the node's ${what} could not be read`, 502);
  }
}
