// GET {baseUrl}/models on an OpenAI-compatible server: used to discover what a node serves and
// as its health check (every OpenAI-compatible server answers it). undici's fetch, not the global
// one: node calls already load the undici package, and the global fetch would load Node's own copy.
import { fetch, type Response } from "undici";
import { UpstreamFailure } from "../upstream-failure";
import { wireHeaders } from "../wire";

export type UpstreamModel = { id: string; [field: string]: unknown };

/**
 * The models the node lists. A failure is an UpstreamFailure whose short message (`timed out`,
 * `connection failed`, `HTTP 401`, `invalid /models response`) is what a node's last error and a
 * failed registration show.
 */
export async function listUpstreamModels(baseUrl: string, apiKey: string | null, timeoutMs: number): Promise<UpstreamModel[]> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl.replace(/\/+$/, "")}/models`, {
      headers: wireHeaders("openai", apiKey),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    // The message names the failure, never the key.
    if (err instanceof Error && err.name === "TimeoutError") throw new UpstreamFailure("timeout", "timed out");
    throw new UpstreamFailure("connect", "connection failed");
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new UpstreamFailure("status", `HTTP ${res.status}`, res.status);
  }
  const body = (await res.json().catch(() => null)) as { data?: unknown } | null;
  if (!body || !Array.isArray(body.data)) throw new UpstreamFailure("protocol", "invalid /models response");
  return body.data.filter((m): m is UpstreamModel => typeof (m as UpstreamModel)?.id === "string");
}
