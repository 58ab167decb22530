// GET {baseUrl}/models on an OpenAI-compatible server: used to discover what a node serves and
// as its health check (every OpenAI-compatible server answers it). undici's fetch, not the global
// one: node calls already load the undici package, and the global fetch would load Node's own copy.
import { fetch, type Response } from "undici";

export type UpstreamModel = { id: string; [field: string]: unknown };

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export function authHeaders(apiKey: string | null): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

export async function listUpstreamModels(baseUrl: string, apiKey: string | null, timeoutMs: number): Promise<UpstreamModel[]> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl.replace(/\/+$/, "")}/models`, {
      headers: authHeaders(apiKey),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    // The message names the failure, never the key.
    throw new UpstreamError(err instanceof Error && err.name === "TimeoutError" ? "timed out" : "connection failed");
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new UpstreamError(`HTTP ${res.status}`, res.status);
  }
  const body = (await res.json().catch(() => null)) as { data?: unknown } | null;
  if (!body || !Array.isArray(body.data)) throw new UpstreamError("invalid /models response");
  return body.data.filter((m): m is UpstreamModel => typeof (m as UpstreamModel)?.id === "string");
}
