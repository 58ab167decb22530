// Anthropic's wire format: an OpenAI chat completion request sent as Anthropic's, its answers brought back as OpenAI's.
import type { ChatAdapter } from "../adapter";
import { UpstreamFailure } from "../upstream-failure";

const unsupported = async (): Promise<never> => {
  throw new UpstreamFailure("protocol", "the anthropic wire format is not available yet", 501);
};

export const anthropicAdapter: ChatAdapter = { complete: unsupported, openStream: unsupported };
