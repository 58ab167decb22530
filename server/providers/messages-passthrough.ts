// Anthropic's Messages API passed through to an `anthropic` node: the client's request as it
// sent it (prompt-cache breakpoints, betas, thinking and all), only the model named as the node
// names it. Its answers come back as Anthropic wrote them.
import { post, type UpstreamResponse, type UpstreamTarget } from "./http";
import { UpstreamFailure } from "./upstream-failure";

const headers = (beta: string | undefined) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(beta ? { "anthropic-beta": beta } : {}),
});

/** POST /v1/messages on the node; resolves once its first byte arrived. */
export function postMessages(target: UpstreamTarget, body: Record<string, unknown>, beta: string | undefined, signal?: AbortSignal): Promise<UpstreamResponse> {
  return post(target, "/messages", JSON.stringify(body), headers(beta), signal);
}

/** POST /v1/messages/count_tokens on the node. */
export async function countTokensOn(target: UpstreamTarget, body: Record<string, unknown>, beta: string | undefined): Promise<{ input_tokens: number }> {
  const res = await post(target, "/messages/count_tokens", JSON.stringify(body), headers(beta));
  const parsed = (await res.body.json().catch(() => null)) as { input_tokens?: unknown } | null;
  if (typeof parsed?.input_tokens !== "number") throw new UpstreamFailure("protocol", "the node sent an unreadable token count", 502);
  return { input_tokens: parsed.input_tokens };
}
