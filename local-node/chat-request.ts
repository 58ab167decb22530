// The chat completions request as the local node reads it: the fields that change its answer are
// validated (400 naming the field); every other OpenAI field is accepted and ignored.
import { z } from "zod";
import { ApiError } from "./http";

const Part = z.looseObject({ type: z.string(), text: z.string().optional() });
const Content = z.union([z.string(), z.array(Part), z.null()]);

const ToolCall = z.looseObject({
  id: z.string(),
  type: z.string(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }).optional(),
});

const Message = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: Content.optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
});

const FunctionTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, underscores or dashes"),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.literal("function"), function: z.object({ name: z.string() }) }),
]);

const ResponseFormat = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    json_schema: z.looseObject({ name: z.string(), schema: z.record(z.string(), z.unknown()).optional() }),
  }),
]);

const positiveInt = z.number().int().min(1);

export const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4), z.null()]).optional(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(FunctionTool).nullish(),
  tool_choice: ToolChoice.nullish(),
  response_format: ResponseFormat.nullish(),
});

export type ChatRequest = z.infer<typeof ChatRequestSchema>;
export type ChatMessage = ChatRequest["messages"][number];
export type FunctionToolDef = z.infer<typeof FunctionTool>;

/** `a.b[0].c` from a zod issue path. */
function paramName(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
}

export function parseChatRequest(body: unknown): ChatRequest {
  const result = ChatRequestSchema.safeParse(body);
  if (result.success) {
    const tools = result.data.tools ?? [];
    const choice = result.data.tool_choice;
    if (choice && typeof choice === "object" && !tools.some((t) => t.function.name === choice.function.name)) {
      throw new ApiError(400, "invalid_value", `tool_choice names the function '${choice.function.name}', which is not in tools`, "tool_choice");
    }
    if (choice && choice !== "none" && !tools.length) {
      throw new ApiError(400, "invalid_value", "tool_choice is only allowed when tools are specified", "tool_choice");
    }
    return result.data;
  }
  const issue = result.error.issues[0]!;
  const param = paramName(issue.path);
  const missing = issue.code === "invalid_type" && issue.message.includes("undefined");
  throw new ApiError(
    400,
    missing ? "missing_required_parameter" : "invalid_value",
    missing ? `Missing required parameter: '${param}'.` : `Invalid value for '${param}': ${issue.message}`,
    param || null,
  );
}

/** The plain text of a message's content: strings as they are, text parts joined. */
export function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content.map((p) => p.text ?? "").join("");
}

/** The output token limit: the smaller of max_tokens and max_completion_tokens. */
export function tokenLimit(req: ChatRequest): number {
  return Math.min(req.max_tokens ?? Infinity, req.max_completion_tokens ?? Infinity);
}
