// GET {baseUrl}/models on an OpenAI-compatible server: used to discover what a node serves and
// as its health check (every OpenAI-compatible server answers it).
import { getListJson } from "../list-json";
import { UpstreamFailure } from "../upstream-failure";
import { wireHeaders } from "../wire";

export type UpstreamModel = { id: string; [field: string]: unknown };

/**
 * The models the node lists. A failure is an UpstreamFailure whose short message (`timed out`,
 * `connection failed`, `HTTP 401`, `invalid /models response`) is what a node's last error and a
 * failed registration show.
 */
export async function listUpstreamModels(baseUrl: string, apiKey: string | null, timeoutMs: number): Promise<UpstreamModel[]> {
  const body = await getListJson(`${baseUrl.replace(/\/+$/, "")}/models`, wireHeaders("openai", apiKey), AbortSignal.timeout(timeoutMs));
  if (!Array.isArray(body.data)) throw new UpstreamFailure("protocol", "invalid /models response");
  return body.data.filter((m): m is UpstreamModel => typeof (m as UpstreamModel)?.id === "string");
}
