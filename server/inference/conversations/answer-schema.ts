// What the conversations API answers (part 2.5 of the API reference). Its items list follows what
// OpenAI answers and its SDK reads (the items themselves in `data`), not the reference's
// `{type: "input", index, data}` wrapper, which no client reads.
import { z } from "zod";
import { deletedAnswer, listPage, unixSeconds } from "../../kernel/answer-schemas";
import { ZStoredInputItem } from "../responses/answer-schema";

export const ZConversation = z.strictObject({
  id: z.string().describe("`conv_...`"),
  object: z.literal("conversation"),
  created_at: unixSeconds,
  metadata: z.record(z.string(), z.string()),
});

export const ZConversationDeleted = deletedAnswer("conversation.deleted");

const ZReasoningItem = z.strictObject({
  id: z.string(),
  type: z.literal("reasoning"),
  summary: z.array(z.strictObject({ type: z.literal("summary_text"), text: z.string() })),
  content: z.array(z.strictObject({ type: z.literal("reasoning_text"), text: z.string() })).optional(),
  encrypted_content: z.string().nullable(),
  status: z.literal("completed"),
});

/** An item of a conversation: a message, a function call or its output, a reasoning item. */
export const ZConversationItem = z.union([ZStoredInputItem, ZReasoningItem]);

/** GET and POST /v1/conversations/{conversation_id}/items. */
export const ZConversationItemList = listPage(ZConversationItem);
