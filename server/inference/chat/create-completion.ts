// POST /v1/chat/completions: resolve the model and check it can serve the request, then hand the
// pipeline a model call: admitted for the most it can cost (402 when the workspace cannot cover
// it), routed to a node (with failover), charged what the node reports. A stream keeps its
// reservation until its charge commits or it fails (relay-stream.ts).
import { maxChatBounds } from "../../routing/catalog/pricing";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import type { ModelRow } from "../../routing/catalog/model-row";
import { errors } from "../../kernel/errors";
import { ModelCall } from "../../admission/admit";
import { completeOnNode, streamOnNode } from "./call-node";
import { normalizeCompletion } from "./completion-shape";
import type { ChatCompletionRequest } from "./schema";

/** `workspaceId`: the caller's (a workspace's fine-tuned model is a model only for it). */
export async function createChatCompletion(req: ChatCompletionRequest, workspaceId: string | null): Promise<ModelCall<Record<string, unknown> | AsyncIterable<string>>> {
  const { row } = await resolveModel(req.model, workspaceId);
  assertChatCapable(row, req);
  return new ModelCall({ endpoint: "/v1/chat/completions", model: row.id, ...maxChatBounds(row, req) }, async (metering) => {
    if (req.stream) return streamOnNode(metering, row, req, req.stream_options?.include_usage === true);
    return normalizeCompletion(await completeOnNode(metering, row, req), row.id);
  });
}

/** Whether the chosen model can honour the request: checked before any money or node is involved. */

export function assertChatCapable(row: ModelRow, req: ChatCompletionRequest): void {
  if (row.type !== "chat") {
    throw errors.invalidRequest(`\`${row.id}\` is a ${row.type} model; /v1/chat/completions needs a chat model.`, "model", "model_not_supported");
  }
  if (req.tools?.length && !row.capTools) {
    throw errors.invalidRequest(`\`${row.id}\` does not support tools.`, "tools", "unsupported_parameter");
  }
  if (req.tool_choice && req.tool_choice !== "none" && !req.tools?.length) {
    throw errors.invalidRequest("`tool_choice` is only allowed when `tools` are given.", "tool_choice");
  }
  const format = req.response_format?.type;
  if (format === "json_object" && !row.capJsonMode) {
    throw errors.invalidRequest(`\`${row.id}\` does not support JSON mode.`, "response_format", "unsupported_parameter");
  }
  if (format === "json_schema" && !row.capStructuredOutput) {
    throw errors.invalidRequest(`\`${row.id}\` does not support structured output (json_schema).`, "response_format", "unsupported_parameter");
  }
  if (req.stream && !row.capStreaming) {
    throw errors.invalidRequest(`\`${row.id}\` does not support streaming.`, "stream", "unsupported_parameter");
  }
  for (const field of ["max_tokens", "max_completion_tokens"] as const) {
    const value = req[field];
    if (value && value > row.maxOutputTokens) {
      throw errors.invalidRequest(`\`${field}\` is ${value}, above the model's limit of ${row.maxOutputTokens} output tokens.`, field);
    }
  }
}
