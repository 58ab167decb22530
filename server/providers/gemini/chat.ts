// Gemini's wire format: an OpenAI chat completion request sent as Gemini's, its answers brought back as OpenAI's.
import type { ChatAdapter } from "../adapter";
import { UpstreamFailure } from "../upstream-failure";

const unsupported = async (): Promise<never> => {
  throw new UpstreamFailure("protocol", "the gemini wire format is not available yet", 501);
};

export const geminiAdapter: ChatAdapter = { complete: unsupported, openStream: unsupported };
