// The requests of the responses API (part 2.4 of the API reference, OpenAI's Responses API for
// the rest): create, retrieve, list input items. What they are answered with is in answer-schema.ts.
import { z } from "zod";
import { ZMcpInputItem, ZMcpTool } from "./mcp-schema";

const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, underscores or dashes");

const inputPart = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("input_text"), text: z.string() }),
  z.looseObject({ type: z.literal("output_text"), text: z.string() }),
  z.looseObject({
    type: z.literal("input_image"),
    image_url: z.string().optional(),
    file_id: z.string().optional(),
    detail: z.enum(["low", "high", "auto", "original"]).optional(),
  }),
  z.looseObject({ type: z.literal("refusal"), refusal: z.string() }),
]);

export const ZMessageItem = z
  .looseObject({
    type: z.literal("message").optional(),
    id: z.string().optional(),
    role: z.enum(["user", "assistant", "system", "developer"]),
    content: z.union([z.string(), z.array(inputPart)]),
  })
  .superRefine((item, ctx) => {
    // What the model said is text or a refusal; images are the user's (as OpenAI has it).
    if (item.role !== "assistant" || typeof item.content === "string") return;
    item.content.forEach((part, i) => {
      if (part.type === "input_image") ctx.addIssue({ code: "custom", path: ["content", i, "type"], message: "an assistant message holds output_text and refusal parts, not images" });
    });
  });

export const ZFunctionCallItem = z.looseObject({
  type: z.literal("function_call"),
  id: z.string().optional(),
  call_id: z.string().min(1),
  name: functionName,
  arguments: z.string(),
});

export const ZFunctionCallOutputItem = z.looseObject({
  type: z.literal("function_call_output"),
  id: z.string().optional(),
  call_id: z.string().min(1),
  output: z.string(),
});

export const ZInputItem = z.union([ZFunctionCallItem, ZFunctionCallOutputItem, ZMcpInputItem, ZMessageItem]);
export type InputItem = z.infer<typeof ZInputItem>;

export const ZFunctionTool = z.looseObject({
  type: z.literal("function"),
  name: functionName,
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

const metadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 16, "at most 16 keys");

export const ZResponseCreate = z
  .looseObject({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(ZInputItem).min(1, "must not be empty")]),
    instructions: z.string().nullable().optional(),
    metadata: metadata.nullable().optional(),
    store: z.boolean().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
    /** A conversation (its id, or `{id}`) whose items are the context, and to which this turn is appended. */
    conversation: z.union([z.string().min(1), z.object({ id: z.string().min(1) })]).nullable().optional(),
    background: z.boolean().nullable().optional(),
    stream: z.boolean().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    max_output_tokens: z.number().int().min(16).nullable().optional(),
    tools: z.array(z.discriminatedUnion("type", [ZFunctionTool, ZMcpTool])).max(128).optional(),
    /** The most MCP tool calls the gateway runs for this response (OpenAI's `max_tool_calls`). */
    max_tool_calls: z.number().int().min(0).nullable().optional(),
    tool_choice: z
      .union([z.enum(["none", "auto", "required"]), z.object({ type: z.literal("function"), name: functionName })])
      .optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    text: z
      .object({
        format: z
          .discriminatedUnion("type", [
            z.object({ type: z.literal("text") }),
            z.object({ type: z.literal("json_object") }),
            z.looseObject({ type: z.literal("json_schema"), name: functionName, schema: z.record(z.string(), z.unknown()), strict: z.boolean().nullable().optional() }),
          ])
          .optional(),
      })
      .optional(),
    user: z.string().optional(),
    truncation: z.enum(["auto", "disabled"]).nullable().optional(),
  })
  .superRefine((req, ctx) => {
    // As OpenAI: a turn continues either a stored response or a conversation, not both.
    if (req.conversation && req.previous_response_id) {
      ctx.addIssue({ code: "custom", path: ["conversation"], message: "conversation cannot be combined with previous_response_id" });
    }
    if (req.background && req.stream) {
      ctx.addIssue({ code: "custom", path: ["background"], message: "background cannot be combined with stream" });
    }
    if (req.background && req.store === false) {
      ctx.addIssue({ code: "custom", path: ["store"], message: "background responses must be stored (store: true)" });
    }
  });
export type ResponseCreate = z.infer<typeof ZResponseCreate>;

export const ZInputItemsQuery = z.object({
  id: z.string().min(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(["asc", "desc"]).default("desc"),
  after: z.string().optional(),
  before: z.string().optional(),
});

/**
 * GET /v1/responses/{id}: `stream=true` replays the response's events (following it while it
 * runs), from after `starting_after` when given. Query values arrive as strings.
 */
export const ZRetrieveQuery = z.object({
  id: z.string().min(1),
  stream: z.enum(["true", "false"]).optional(),
  starting_after: z.coerce.number().int().min(0).optional(),
});
export type RetrieveQuery = z.infer<typeof ZRetrieveQuery>;
