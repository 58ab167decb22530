// Conversation items of the responses API, and their translation to chat messages for nodes
// that only speak chat completions.
import type { z } from "zod";
import { randomBase62 } from "../../kernel/ids";
import { isMcpItem, mcpChatItems, normalizeMcpItem, type McpItem } from "./mcp-items";
import type { McpInputItem } from "./mcp-schema";
import type { InputItem, ZMessageItem } from "./schema";

type MessageInput = z.infer<typeof ZMessageItem>;

type Part = Record<string, unknown> & { type: string };
/** An output item's status: incomplete when the response ended early (max_output_tokens). */
export type ItemStatus = "in_progress" | "completed" | "incomplete";
export type MessageItem = { id: string; type: "message"; role: string; status: ItemStatus; content: Part[] };
export type FunctionCallItem = { id: string; type: "function_call"; call_id: string; name: string; arguments: string; status: ItemStatus };
export type FunctionCallOutputItem = { id: string; type: "function_call_output"; call_id: string; output: string; status: "completed" };
export type Item = MessageItem | FunctionCallItem | FunctionCallOutputItem | McpItem;

export const itemId = (prefix: "msg" | "fc" | "fco") => `${prefix}_${randomBase62(24)}`;

/** An output_text part with every field OpenAI's has (the gateway has no annotations or logprobs to give). */
export function outputText(text: string): Part {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

/** An item as it is answered: parts stored before they carried every field get them. */
export function wireItem(item: Item): Item {
  if (item.type !== "message") return item;
  const content = item.content.map((p) => (p.type === "output_text" ? { ...p, annotations: p.annotations ?? [], logprobs: p.logprobs ?? [] } : p));
  return { ...item, status: item.status ?? "completed", content };
}

/**
 * An input item as it is listed: a message's parts as OpenAI lists them for its role (an
 * assistant's text as output_text, the others' as input_text; an image with its detail), whatever
 * form of them the client sent.
 */
export function wireInputItem(item: Item): Item {
  if (item.type !== "message") return item;
  const assistant = item.role === "assistant";
  const content = item.content.map((p): Part => {
    if (p.type === "refusal" && assistant) return { type: "refusal", refusal: String(p.refusal) };
    if (p.type === "input_image") return { type: "input_image", image_url: p.image_url ?? null, file_id: p.file_id ?? null, detail: p.detail ?? "auto" };
    const text = String(p.text ?? p.refusal ?? "");
    return assistant ? outputText(text) : { type: "input_text", text };
  });
  return { ...item, status: item.status ?? "completed", content };
}

/** The input as stored and listed: typed items with ids, string content made into parts. */
export function normalizeInput(input: string | InputItem[]): Item[] {
  const items: InputItem[] = typeof input === "string" ? [{ role: "user", content: input }] : input;
  return items.map((item): Item => {
    if (item.type === "function_call") {
      return { id: item.id ?? itemId("fc"), type: "function_call", call_id: item.call_id, name: item.name, arguments: item.arguments, status: "completed" };
    }
    if (item.type === "function_call_output") {
      return { id: item.id ?? itemId("fco"), type: "function_call_output", call_id: item.call_id, output: item.output, status: "completed" };
    }
    if (isMcpItem(item as { type: string })) return normalizeMcpItem(item as McpInputItem);
    if (!("role" in item)) throw new Error("unreachable: an input item without a role");
    return messageItem(item as MessageInput);
  });
}

function messageItem(item: MessageInput): Item {
  const textType = item.role === "assistant" ? "output_text" : "input_text";
  const content: Part[] =
    typeof item.content === "string"
      ? [textType === "output_text" ? outputText(item.content) : { type: textType, text: item.content }]
      : (item.content as Part[]);
  return { id: item.id ?? itemId("msg"), type: "message", role: item.role, status: "completed", content };
}

function chatContent(parts: Part[]): string | Record<string, unknown>[] {
  if (parts.every((p) => p.type !== "input_image")) {
    return parts.map((p) => (typeof p.text === "string" ? p.text : typeof p.refusal === "string" ? p.refusal : "")).join("");
  }
  return parts.map((p) =>
    p.type === "input_image" ? { type: "image_url", image_url: { url: p.image_url } } : { type: "text", text: String(p.text ?? "") },
  );
}

/** Items in conversation order to chat messages; consecutive function calls form one assistant turn. */
export function toChatMessages(items: Item[]): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  // MCP items are told to the node as the function calls and results they stand for.
  for (const item of items.flatMap((i) => (isMcpItem(i) ? mcpChatItems(i, items) : [i]))) {
    if (item.type === "message") {
      messages.push({ role: item.role, content: chatContent(item.content) });
    } else if (item.type === "function_call") {
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === "assistant" && Array.isArray(last.tool_calls)) (last.tool_calls as unknown[]).push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
    }
  }
  return messages;
}
