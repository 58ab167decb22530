// The OpenAI format's adapter: the body goes to the node as it is, and its answers come back
// as they are (its stream chunks are relayed without a translator).
import type { ChatAdapter, Json } from "../adapter";
import { postForJson, postJson } from "../http";

export const openaiAdapter: ChatAdapter = {
  complete: (target, body, { signal }) => postForJson(target, "/chat/completions", { ...body, stream: false }, "completion", signal),
  async openStream(target, body, { signal }) {
    const stream_options = { ...(body.stream_options as Json | undefined), include_usage: true };
    return { response: await postJson(target, "/chat/completions", JSON.stringify({ ...body, stream: true, stream_options }), signal) };
  },
  embed: (target, body, { signal }) => postForJson(target, "/embeddings", body, "embeddings", signal),
  moderate: (target, body, { signal }) => postForJson(target, "/moderations", body, "moderation", signal),
};
