// An OpenAI conversation as Anthropic's: system and developer messages become the `system`
// blocks (in order), tool results a user turn's tool_result blocks, an assistant's tool calls its
// tool_use blocks. Anthropic wants user and assistant turns to alternate, so consecutive turns
// of one role are merged into one.
import type { ContentBlockParam, MessageParam, TextBlockParam, ThinkingBlockParam, RedactedThinkingBlockParam, ToolResultBlockParam, ToolUseBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { Json } from "../adapter";
import { cacheLast, textBlocks, userBlocks } from "./content";

type ChatMessage = Json & { role?: unknown; content?: unknown; cache_control?: unknown };
type ToolCall = { id?: string; function?: { name?: string; arguments?: string }; cache_control?: unknown };

export type Conversation = { system: TextBlockParam[]; messages: MessageParam[] };

/**
 * A tool call's arguments as tool_use input, which must be a JSON object. Arguments that are not
 * one (a model's broken JSON being sent back) become {} rather than failing the whole turn.
 */
export function toolInput(args: unknown): Record<string, unknown> {
  if (typeof args !== "string" || !args.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The thinking an assistant turn carries back: the `thinking_blocks` an earlier answer gave (each
 * with its signature, which Anthropic checks). `reasoning_content` alone has no signature, and a
 * thinking block without one is refused: it is not sent.
 */
function thinkingBlocks(message: ChatMessage): (ThinkingBlockParam | RedactedThinkingBlockParam)[] {
  const blocks = Array.isArray(message.thinking_blocks) ? (message.thinking_blocks as Json[]) : [];
  return blocks.flatMap((b): (ThinkingBlockParam | RedactedThinkingBlockParam)[] => {
    if (b.type === "thinking" && typeof b.thinking === "string" && typeof b.signature === "string") return [{ type: "thinking", thinking: b.thinking, signature: b.signature }];
    if (b.type === "redacted_thinking" && typeof b.data === "string") return [{ type: "redacted_thinking", data: b.data }];
    return [];
  });
}

function assistantBlocks(message: ChatMessage): ContentBlockParam[] {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as ToolCall[]) : [];
  const uses = calls.map((call): ToolUseBlockParam => {
    const block: ToolUseBlockParam = { type: "tool_use", id: call.id ?? "", name: call.function?.name ?? "", input: toolInput(call.function?.arguments) };
    return call.cache_control ? { ...block, cache_control: call.cache_control as ToolUseBlockParam["cache_control"] } : block;
  });
  // Thinking blocks come first in an assistant turn, as Anthropic produced them.
  return cacheLast([...thinkingBlocks(message), ...textBlocks(message.content), ...uses], message.cache_control);
}

function toolResult(message: ChatMessage): ToolResultBlockParam {
  const content = userBlocks(message.content);
  const block: ToolResultBlockParam = {
    type: "tool_result",
    tool_use_id: String(message.tool_call_id ?? ""),
    // One text part is sent as a string, as Anthropic's own clients send a plain result.
    content: content.length === 1 && content[0]!.type === "text" && !content[0]!.cache_control ? content[0]!.text : content,
  };
  return message.cache_control ? { ...block, cache_control: message.cache_control as ToolResultBlockParam["cache_control"] } : block;
}

export function conversationOf(messages: ChatMessage[]): Conversation {
  const system: TextBlockParam[] = [];
  const turns: MessageParam[] = [];
  const add = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = turns.at(-1);
    if (last?.role === role) (last.content as ContentBlockParam[]).push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
      case "developer":
        system.push(...cacheLast(textBlocks(m.content), m.cache_control));
        break;
      case "assistant":
        add("assistant", assistantBlocks(m));
        break;
      case "tool":
        add("user", [toolResult(m)]);
        break;
      default:
        add("user", cacheLast(userBlocks(m.content), m.cache_control));
    }
  }
  return { system, messages: turns };
}
