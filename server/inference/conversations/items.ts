// Conversation items: the responses API's items (messages, function calls and their outputs) plus
// reasoning items, which a conversation keeps and lists but a chat node cannot be sent.
import { normalizeInput, wireInputItem, type Item } from "../responses/items";
import { randomBase62 } from "../../kernel/ids";
import type { InputItem } from "../responses/schema";
import type { ConversationInputItem } from "./schema";

export type ReasoningItem = {
  id: string;
  type: "reasoning";
  summary: { type: "summary_text"; text: string }[];
  content?: { type: "reasoning_text"; text: string }[];
  encrypted_content: string | null;
  status: "completed";
};
export type ConversationItem = Item | ReasoningItem;

/** Typed items with ids, as stored: string content made into parts, as for a response's input. */
export function normalizeItems(items: ConversationInputItem[]): ConversationItem[] {
  return items.map((item): ConversationItem => {
    if (item.type !== "reasoning") return normalizeInput([item as InputItem])[0]!;
    return {
      id: item.id ?? `rs_${randomBase62(24)}`,
      type: "reasoning",
      summary: item.summary,
      ...(item.content && { content: item.content }),
      encrypted_content: item.encrypted_content ?? null,
      status: "completed",
    };
  });
}

/** An item as it is answered: a message's parts as OpenAI lists them for its role. */
export function wireConversationItem(item: ConversationItem): ConversationItem {
  return item.type === "reasoning" ? item : wireInputItem(item);
}

/** What a chat node can be given as context: everything but reasoning items. */
export function contextItems(items: ConversationItem[]): Item[] {
  return items.filter((i): i is Item => i.type !== "reasoning");
}
