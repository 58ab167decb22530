// Conversations and their items, always looked up within the caller's workspace: another
// workspace's id is answered exactly like an unknown one (404), on every path.
import { Prisma } from "../../generated/prisma/client";
import { db, type Tx } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { randomBase62 } from "../../kernel/ids";
import type { ConversationItem } from "./items";

export type ConversationRow = { id: string; metadata: Record<string, string>; createdAt: Date };

/** `param` is what named the id: the path's `conversation_id`, or `conversation` in a response request. */
export const conversationNotFound = (id: string, param = "conversation_id") =>
  errors.notFound(`No conversation with id '${id}' found.`, "conversation_not_found", param);

const itemNotFound = (id: string) => errors.notFound(`No item with id '${id}' found in this conversation.`, "item_not_found", "item_id");

const rowOf = (r: { id: string; metadata: unknown; createdAt: Date }): ConversationRow => ({ id: r.id, metadata: r.metadata as Record<string, string>, createdAt: r.createdAt });

export async function findConversation(workspaceId: string, id: string, param?: string): Promise<ConversationRow> {
  const row = await db.conversation.findFirst({ where: { id, workspaceId }, select: { id: true, metadata: true, createdAt: true } });
  if (!row) throw conversationNotFound(id, param);
  return rowOf(row);
}

export async function insertConversation(workspaceId: string, apiKeyId: string | null, metadata: Record<string, string>, items: ConversationItem[]): Promise<ConversationRow> {
  const id = `conv_${randomBase62(24)}`;
  return db.$transaction(async (tx) => {
    const row = await tx.conversation.create({ data: { id, workspaceId, apiKeyId, metadata }, select: { id: true, metadata: true, createdAt: true } });
    await insertItems(tx, id, items, "refuse");
    return rowOf(row);
  });
}

export async function updateMetadata(workspaceId: string, id: string, metadata: Record<string, string>): Promise<ConversationRow> {
  const { count } = await db.conversation.updateMany({ where: { id, workspaceId }, data: { metadata } });
  if (!count) throw conversationNotFound(id);
  return findConversation(workspaceId, id);
}

export async function deleteConversation(workspaceId: string, id: string): Promise<void> {
  // Its items go with it (ON DELETE CASCADE).
  const { count } = await db.conversation.deleteMany({ where: { id, workspaceId } });
  if (!count) throw conversationNotFound(id);
}

/**
 * Adds items at the end of a conversation, in the given order. The conversation's row is locked
 * first, so that items added by two calls at once are never interleaved (a response's turn stays
 * together) and `seq` follows commit order. An id already in the conversation is refused
 * (`refuse`: the caller chose it) or replaced by a fresh one (`renew`: a response's input items,
 * appended after the model answered, when failing is no longer an option). Returns the items as
 * stored, or null when the conversation no longer exists.
 */
export async function appendItems(conversationId: string, items: ConversationItem[], onDuplicate: "refuse" | "renew"): Promise<ConversationItem[] | null> {
  return db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Conversation" WHERE "id" = ${conversationId} FOR UPDATE`;
    if (!locked.length) return null;
    return insertItems(tx, conversationId, items, onDuplicate);
  });
}

async function insertItems(tx: Tx, conversationId: string, items: ConversationItem[], onDuplicate: "refuse" | "renew"): Promise<ConversationItem[]> {
  if (!items.length) return [];
  const existing = await tx.conversationItem.findMany({ where: { conversationId, id: { in: items.map((i) => i.id) } }, select: { id: true } });
  const taken = new Set(existing.map((r) => r.id));
  const stored = items.map((item, i) => {
    if (!taken.has(item.id)) {
      taken.add(item.id);
      return item;
    }
    if (onDuplicate === "refuse") throw errors.invalidRequest(`The conversation already has an item with id '${item.id}'.`, `items[${i}].id`);
    const renewed = { ...item, id: `${item.id.split("_")[0]}_${randomBase62(24)}` };
    taken.add(renewed.id);
    return renewed;
  });
  // One statement, rows in order: `seq` follows the items' order.
  await tx.conversationItem.createMany({ data: stored.map((item) => ({ conversationId, id: item.id, item: item as unknown as Prisma.InputJsonValue })) });
  return stored;
}

/** Every item of a conversation, oldest first (the context a response is given). */
export async function allItems(conversationId: string): Promise<ConversationItem[]> {
  const rows = await db.conversationItem.findMany({ where: { conversationId }, orderBy: { seq: "asc" }, select: { item: true } });
  return rows.map((r) => r.item as unknown as ConversationItem);
}

/** A page of items after the item `after` (in the page's order), and whether more follow. */
export async function pageItems(conversationId: string, q: { limit: number; order: "asc" | "desc"; after?: string }): Promise<{ items: ConversationItem[]; hasMore: boolean }> {
  let seq: Prisma.ConversationItemWhereInput["seq"];
  if (q.after) {
    const cursor = await db.conversationItem.findUnique({ where: { conversationId_id: { conversationId, id: q.after } }, select: { seq: true } });
    if (!cursor) throw errors.invalidRequest(`No item with id '${q.after}' in this conversation.`, "after");
    seq = q.order === "asc" ? { gt: cursor.seq } : { lt: cursor.seq };
  }
  const rows = await db.conversationItem.findMany({ where: { conversationId, seq }, orderBy: { seq: q.order }, take: q.limit + 1, select: { item: true } });
  return { items: rows.slice(0, q.limit).map((r) => r.item as unknown as ConversationItem), hasMore: rows.length > q.limit };
}

export async function findItem(conversationId: string, itemId: string): Promise<ConversationItem> {
  const row = await db.conversationItem.findUnique({ where: { conversationId_id: { conversationId, id: itemId } }, select: { item: true } });
  if (!row) throw itemNotFound(itemId);
  return row.item as unknown as ConversationItem;
}

export async function deleteItem(conversationId: string, itemId: string): Promise<void> {
  const { count } = await db.conversationItem.deleteMany({ where: { conversationId, id: itemId } });
  if (!count) throw itemNotFound(itemId);
}

/** Takes back items appended for a response whose charge then failed. */
export async function removeItems(conversationId: string, ids: string[]): Promise<void> {
  await db.conversationItem.deleteMany({ where: { conversationId, id: { in: ids } } });
}
