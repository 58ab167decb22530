// The OpenAI format's adapter: the body goes to the node as it is, and its answers come back
// as they are (its stream chunks are relayed without a translator).
import type { ChatAdapter, Json } from "../adapter";
import { postJson, type UpstreamTarget } from "../http";
import { UpstreamFailure } from "../upstream-failure";

async function postForJson(target: UpstreamTarget, path: string, body: Json, what: string, signal?: AbortSignal): Promise<Json> {
  const res = await postJson(target, path, JSON.stringify(body), signal);
  try {
    return JSON.parse(await res.body.text()) as Json;
  } catch (err) {
    if (signal?.aborted) throw err;
    // Nothing reached the client yet, so this may still go to another node.
    throw new UpstreamFailure("protocol", `the node sent unreadable ${what}`, 502);
  }
}

export const openaiAdapter: ChatAdapter = {
  complete: (target, body, { signal }) => postForJson(target, "/chat/completions", { ...body, stream: false }, "completion", signal),
  async openStream(target, body, { signal }) {
    const stream_options = { ...(body.stream_options as Json | undefined), include_usage: true };
    return { response: await postJson(target, "/chat/completions", JSON.stringify({ ...body, stream: true, stream_options }), signal) };
  },
  embed: (target, body, { signal }) => postForJson(target, "/embeddings", body, "embeddings", signal),
};
