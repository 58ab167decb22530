// The conversations API's services: create, retrieve, update and delete a conversation; list,
// add, retrieve and delete its items. Each looks the conversation up in the caller's workspace
// first, so that no path reaches another workspace's items.
import type { CallContext } from "../../identity/principal";
import type { z } from "zod";
import { normalizeItems, wireConversationItem, type ConversationItem } from "./items";
import type { ItemsQuery, ZConversationCreate, ZConversationInputItem } from "./schema";
import {
  appendItems,
  conversationNotFound,
  deleteConversation as removeConversation,
  deleteItem,
  findConversation,
  findItem,
  insertConversation,
  pageItems,
  updateMetadata,
  type ConversationRow,
} from "./store";

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

export function conversationObject(c: ConversationRow) {
  return { id: c.id, object: "conversation" as const, created_at: seconds(c.createdAt), metadata: c.metadata };
}

function itemList(items: ConversationItem[], hasMore: boolean) {
  return { object: "list" as const, data: items.map(wireConversationItem), first_id: items[0]?.id ?? null, last_id: items.at(-1)?.id ?? null, has_more: hasMore };
}

export async function createConversation(ctx: CallContext, input: z.output<typeof ZConversationCreate>) {
  const items = normalizeItems(input.items ?? []);
  return conversationObject(await insertConversation(ctx.principal.workspaceId, ctx.principal.keyId, input.metadata ?? {}, items));
}

export async function getConversation(workspaceId: string, id: string) {
  return conversationObject(await findConversation(workspaceId, id));
}

export async function updateConversation(workspaceId: string, id: string, metadata: Record<string, string> | null) {
  return conversationObject(await updateMetadata(workspaceId, id, metadata ?? {}));
}

export async function deleteConversation(workspaceId: string, id: string) {
  await removeConversation(workspaceId, id);
  return { id, object: "conversation.deleted" as const, deleted: true };
}

export async function listItems(workspaceId: string, q: ItemsQuery) {
  await findConversation(workspaceId, q.conversation_id);
  const { items, hasMore } = await pageItems(q.conversation_id, q);
  return itemList(items, hasMore);
}

/** Adds items at the end, in order; answers the items added (with their ids), as OpenAI does. */
export async function addItems(workspaceId: string, id: string, input: z.output<typeof ZConversationInputItem>[]) {
  await findConversation(workspaceId, id);
  const stored = await appendItems(id, normalizeItems(input), "refuse");
  if (!stored) throw conversationNotFound(id); // deleted meanwhile
  return itemList(stored, false);
}

export async function getItem(workspaceId: string, id: string, itemId: string) {
  await findConversation(workspaceId, id);
  return wireConversationItem(await findItem(id, itemId));
}

/** Answers the conversation the item was deleted from, as OpenAI does. */
export async function removeItem(workspaceId: string, id: string, itemId: string) {
  const conversation = await findConversation(workspaceId, id);
  await deleteItem(id, itemId);
  return conversationObject(conversation);
}
