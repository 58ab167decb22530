// A Gemini call that answers JSON: the node's status failures come from http.ts (Gemini's error
// body `{error: {code, message, status}}` kept for the router), an unreadable answer here.
import { postJson, type UpstreamTarget } from "../http";
import { UpstreamFailure } from "../upstream-failure";
import { geminiModelName } from "./request";

/** `models/{model}:{method}` under the node's base URL (which ends in /v1beta). */
export const methodPath = (model: string, method: string) => `/models/${encodeURIComponent(geminiModelName(model))}:${method}`;

export async function postGemini<T>(target: UpstreamTarget, path: string, body: unknown, what: string, signal?: AbortSignal): Promise<T> {
  const res = await postJson(target, path, JSON.stringify(body), signal);
  try {
    return JSON.parse(await res.body.text()) as T;
  } catch (err) {
    if (signal?.aborted) throw err;
    // Nothing reached the client yet, so this may still go to another node.
    throw new UpstreamFailure("protocol", `the node sent unreadable ${what}`, 502);
  }
}
