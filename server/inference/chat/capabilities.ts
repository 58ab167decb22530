// Whether the chosen model can honour the request: checked before any money or node is involved.
import type { ModelRow } from "../../routing/catalog/model-row";
import { errors } from "../../kernel/errors";
import type { ChatCompletionRequest } from "./schema";

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
