// Formats with no moderation endpoint: Anthropic's Messages API and Gemini's generateContent
// family have none (Gemini's safety ratings come only with a generation). A moderation model
// linked to such a node is a routing mistake of the operator's, not a failing node: it is refused
// with a 502 that says so, at once, without counting against the node's breaker or trying
// another node of the same kind.
import { GatewayError } from "../kernel/errors";
import type { ChatAdapter } from "./adapter";

export function refuseModerations(format: string): ChatAdapter["moderate"] {
  return async (_target, body) => {
    throw new GatewayError({
      status: 502,
      code: "moderation_not_supported",
      type: "server_error",
      message: `The node serving \`${String(body.model)}\` speaks ${format}, which has no moderations endpoint: moderation models must be served by an OpenAI-format node.`,
    });
  };
}
