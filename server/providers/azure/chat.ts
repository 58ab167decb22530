// Azure OpenAI's adapter: OpenAI's bodies, at Azure's paths (paths.ts), with its prompt
// annotations left out of streams (stream-annotations.ts). Azure has no moderations endpoint of
// OpenAI's shape (its content filter runs on every call instead): moderation calls are refused.
import type { ChatAdapter, Json } from "../adapter";
import { postForJson, postJson } from "../http";
import { refuseModerations } from "../moderation-refusal";
import { operationPath } from "./paths";
import { withCredentialHint } from "./refused-credentials";
import { azureStreamTranslator } from "./stream-annotations";

const deployment = (body: Json) => String(body.model);

export const azureAdapter: ChatAdapter = {
  complete: (target, body, { signal }) =>
    withCredentialHint(() => postForJson(target, operationPath(target, "chat/completions", deployment(body)), { ...body, stream: false }, "completion", signal)),
  async openStream(target, body, { signal }) {
    const stream_options = { ...(body.stream_options as Json | undefined), include_usage: true };
    const path = operationPath(target, "chat/completions", deployment(body));
    const response = await withCredentialHint(() => postJson(target, path, JSON.stringify({ ...body, stream: true, stream_options }), signal));
    return { response, translator: azureStreamTranslator(deployment(body)) };
  },
  embed: (target, body, { signal }) => withCredentialHint(() => postForJson(target, operationPath(target, "embeddings", deployment(body)), body, "embeddings", signal)),
  moderate: refuseModerations("Azure OpenAI"),
};
