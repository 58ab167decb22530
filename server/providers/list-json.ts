// GET of a node's model list, whatever its format: undici's fetch (node calls already load the
// undici package; the global fetch would load Node's own copy) with the wire format's headers.
// A failure is an UpstreamFailure whose short message (`timed out`, `connection failed`,
// `HTTP 401`, `invalid /models response`) is what a node's last error and a failed registration show.
import { fetch, type Response } from "undici";
import { UpstreamFailure } from "./upstream-failure";

export async function getListJson(url: string | URL, headers: Record<string, string>, signal: AbortSignal): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { headers, signal });
  } catch (err) {
    // The message names the failure, never the key.
    if (err instanceof Error && err.name === "TimeoutError") throw new UpstreamFailure("timeout", "timed out");
    throw new UpstreamFailure("connect", "connection failed");
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new UpstreamFailure("status", `HTTP ${res.status}`, res.status);
  }
  const body = (await res.json().catch(() => null)) as unknown;
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new UpstreamFailure("protocol", "invalid /models response");
  return body as Record<string, unknown>;
}

/** The prices of a model card from a list that gives none: all "0", and "unpriced" (not served until an operator prices it). */
export const UNPRICED = {
  cache_read_per_1m: "0",
  cache_write_per_1m: "0",
  input_per_1m: "0",
  output_per_1m: "0",
  per_1m_chars: "0",
  per_audio_second: "0",
  per_image: "0",
  per_video_second: "0",
  reasoning_per_1m: "0",
  batch_discount: "0.5",
  training_per_1m: "0",
  fine_tuned_input_per_1m: "0",
  fine_tuned_output_per_1m: "0",
  pricing_status: "unpriced",
} as const;
