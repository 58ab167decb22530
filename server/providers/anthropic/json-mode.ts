// OpenAI's JSON mode (`response_format: {type: "json_object"}`) on Anthropic. Anthropic's
// structured outputs (`output_config.format`) need a schema whose objects forbid additional
// properties, so "any JSON object" cannot be said that way. Instead the model is given one tool
// whose input is any object, and asked to call it (LiteLLM's and Portkey's approach); its input
// comes back as the answer's content, and the call itself is never shown as a tool call.
import type { Tool } from "@anthropic-ai/sdk/resources/messages";

export const JSON_TOOL = "json_response";

export const jsonTool: Tool = {
  name: JSON_TOOL,
  description: "Give your answer as a JSON object: the input of this tool is the answer.",
  input_schema: { type: "object", additionalProperties: true },
};
