// Anthropic's own rules for a Messages request, refused as Anthropic refuses them: a 400 whose
// message names the field the way Anthropic does (`system.0.type: Input should be 'text'`).
// Checked element by element, after the request's shape (schema.ts): as zod unions, `system` and
// `content` (a string or blocks) would only say "Invalid input" at the field, not which block.
// Only what Anthropic refuses is refused; the block and tool types are those of Anthropic's SDK,
// beta ones included (coding agents send them), and fields a node cannot use still pass.
import { z } from "zod";

/** A custom tool's name (server tools, those with a `type`, keep the name Anthropic gives them). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

const ZTextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });

/** Blocks whose fields the gateway does not read: their type is checked, the rest is the node's. */
const OTHER_BLOCK_TYPES = [
  "search_result",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "advisor_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
  "compaction",
  "tool_addition",
  "tool_removal",
  "mcp_tool_listing",
  "fallback",
] as const;

const ZBlock = z.discriminatedUnion("type", [
  ZTextBlock,
  z.looseObject({ type: z.literal("image"), source: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.literal("document"), source: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string() }),
  z.looseObject({ type: z.literal("tool_result"), tool_use_id: z.string() }),
  z.looseObject({ type: z.literal("thinking"), thinking: z.string() }),
  z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
  z.looseObject({ type: z.enum(OTHER_BLOCK_TYPES) }),
]);

const ZToolChoice = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("auto") }),
  z.looseObject({ type: z.literal("any") }),
  z.looseObject({ type: z.literal("tool"), name: z.string() }),
  z.looseObject({ type: z.literal("none") }),
]);

const ZThinking = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1024) }),
  z.looseObject({ type: z.literal("disabled") }),
  z.looseObject({ type: z.literal("adaptive") }),
  z.looseObject({ type: z.literal("between_tools") }),
]);

const ZCustomTool = z.looseObject({ name: z.string().regex(TOOL_NAME) });

const quoted = (values: readonly unknown[]) => values.map((v) => `'${String(v)}'`).join(", ");

/** zod's issue in Anthropic's words (its API answers in pydantic's). */
function anthropicWords(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case "invalid_type":
      return iss.input === undefined ? "Field required" : `Input should be a valid ${iss.expected}`;
    case "invalid_value":
      return `Input should be ${quoted(iss.values)}`;
    case "invalid_union": {
      if (!iss.note || !("discriminator" in iss)) return undefined;
      const key = String(iss.discriminator);
      const tag = (iss.input as Record<string, unknown> | undefined)?.[key];
      if (typeof tag !== "string") return `Unable to extract tag using discriminator '${key}'`;
      return `Input tag '${tag}' found using '${key}' does not match any of the expected tags: ${quoted(iss.options as unknown[])}`;
    }
    case "too_small":
      return `Input should be greater than or equal to ${String(iss.minimum)}`;
    case "invalid_format":
      if (!("pattern" in iss) || !iss.pattern) return undefined;
      // Typed as a string, but zod's regex check hands over the RegExp itself.
      const pattern: unknown = iss.pattern;
      return `String should match pattern '${pattern instanceof RegExp ? pattern.source : String(pattern)}'`;
    default:
      return undefined;
  }
}

type Refinement = z.core.$RefinementCtx;

/** Checks `value` against `schema`, each issue reported at the request's root as `path.to.field: words`. */
function check(schema: z.ZodType, value: unknown, path: PropertyKey[], ctx: Refinement): void {
  const result = schema.safeParse(value, { error: anthropicWords });
  for (const iss of result.error?.issues ?? []) {
    const field = [...path, ...iss.path].map(String).join(".");
    // At the root, so that the gateway's 400 says it in Anthropic's form (kernel/validation-error.ts).
    ctx.addIssue({ code: "custom", message: `${field}: ${iss.message}`, path: [] });
  }
}

function checkBlocks(blocks: unknown, block: z.ZodType, path: PropertyKey[], ctx: Refinement): void {
  if (Array.isArray(blocks)) blocks.forEach((b, i) => check(block, b, [...path, i], ctx));
}

type Request = {
  system?: unknown;
  messages: { role: string; content: unknown }[];
  tools?: { type?: string | null }[];
  tool_choice?: unknown;
  thinking?: unknown;
};

/** The refinement of the request schemas: every rule above, over a request of the right shape. */
export function anthropicRules(req: Request, ctx: Refinement): void {
  checkBlocks(req.system, ZTextBlock, ["system"], ctx);
  req.messages.forEach((m, i) => checkBlocks(m.content, m.role === "system" ? ZTextBlock : ZBlock, ["messages", i, "content"], ctx));
  req.tools?.forEach((t, i) => {
    if (!t.type || t.type === "custom") check(ZCustomTool, t, ["tools", i], ctx);
  });
  if (req.tool_choice !== undefined) check(ZToolChoice, req.tool_choice, ["tool_choice"], ctx);
  if (req.thinking !== undefined) check(ZThinking, req.thinking, ["thinking"], ctx);
}
