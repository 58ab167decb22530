// The requests of the conversations API (part 2.5 and 4.2 of the API reference; OpenAI's
// Conversations API, as its SDK sends them, for the rest). What they are answered with is in
// answer-schema.ts.
import { z } from "zod";
import { ZFunctionCallItem, ZFunctionCallOutputItem, ZMessageItem } from "../responses/schema";

/** OpenAI adds at most 20 items per call (create and items.create alike). */
export const MAX_ITEMS_PER_CALL = 20;

/** OpenAI's metadata: up to 16 string pairs, keys up to 64 characters, values up to 512. */
export const ZMetadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 16, "at most 16 keys");

/** A reasoning item a client carries over from a response (kept, but never sent to a chat node). */
const ZReasoningInput = z.looseObject({
  type: z.literal("reasoning"),
  id: z.string().optional(),
  summary: z.array(z.strictObject({ type: z.literal("summary_text"), text: z.string() })),
  content: z.array(z.strictObject({ type: z.literal("reasoning_text"), text: z.string() })).optional(),
  encrypted_content: z.string().nullable().optional(),
});

const ITEM_TYPES = ["message", "function_call", "function_call_output", "reasoning"];

/** An item added to a conversation: a message (its `type` may be left out, as in responses' input), a function call or its output, a reasoning item. */
export const ZConversationInputItem = z.discriminatedUnion("type", [ZMessageItem, ZFunctionCallItem, ZFunctionCallOutputItem, ZReasoningInput], {
  error: (issue) => (issue.code === "invalid_union" ? `must be one of ${ITEM_TYPES.join(", ")}` : undefined),
});
export type ConversationInputItem = z.infer<typeof ZConversationInputItem>;

const ZItems = z.array(ZConversationInputItem).max(MAX_ITEMS_PER_CALL, `at most ${MAX_ITEMS_PER_CALL} items can be added at a time`);

export const ZConversationCreate = z.object({
  items: ZItems.nullable().optional(),
  metadata: ZMetadata.nullable().optional(),
});

export const ZConversationId = z.object({ conversation_id: z.string().min(1) });

/** The metadata replaces the conversation's (null clears it). */
export const ZConversationUpdate = z.object({ conversation_id: z.string().min(1), metadata: ZMetadata.nullable() });

export const ZItemsCreate = z.object({ conversation_id: z.string().min(1), items: ZItems.min(1, "must not be empty") });

export const ZItemPath = z.object({ conversation_id: z.string().min(1), item_id: z.string().min(1) });

/** GET .../items: newest first unless `order=asc`, as OpenAI lists them. Query values arrive as strings. */
export const ZItemsQuery = z.object({
  conversation_id: z.string().min(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(["asc", "desc"]).default("desc"),
  after: z.string().min(1).optional(),
});
export type ItemsQuery = z.infer<typeof ZItemsQuery>;
