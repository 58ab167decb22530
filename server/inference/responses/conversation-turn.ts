// A response in a conversation (`conversation` on create): the conversation's items are its
// context, before the new input; once the response has finished (completed or incomplete, never
// failed or cancelled), its input and output items are appended to the conversation, once. They
// are appended before the call is charged, and taken out again if the charge does not commit, so
// that a conversation never holds a turn that was not billed.
import { contextItems } from "../conversations/items";
import { allItems, appendItems, findConversation, removeItems } from "../conversations/store";
import { logFor } from "../../infra/telemetry/log";
import type { Item } from "./items";
import type { ResponseCreate } from "./schema";

const log = logFor("responses");

/** The conversation's id, given as a string or as `{id}` (both forms the SDKs send). */
export function conversationIdOf(conversation: ResponseCreate["conversation"]): string | null {
  if (!conversation) return null;
  return typeof conversation === "string" ? conversation : conversation.id;
}

/** The items a response in this conversation is given before its input; a 404 naming `conversation` when the caller's workspace has no such conversation. */
export async function conversationContext(workspaceId: string, conversationId: string): Promise<Item[]> {
  await findConversation(workspaceId, conversationId, "conversation");
  return contextItems(await allItems(conversationId));
}

export class ConversationTurn {
  private started = false;
  private appended: string[] = [];

  constructor(
    readonly conversationId: string,
    private readonly inputItems: Item[],
  ) {}

  /**
   * Appends the turn's input and output items; a second call does nothing. A conversation deleted
   * meanwhile gets nothing (the response itself stands).
   */
  async append(output: Item[]): Promise<void> {
    if (this.started) return;
    this.started = true;
    const stored = await appendItems(this.conversationId, [...this.inputItems, ...output], "renew");
    this.appended = stored?.map((i) => i.id) ?? [];
  }

  /** Takes the turn out again: the response failed after all (its charge did not commit). */
  async undo(): Promise<void> {
    const ids = this.appended;
    this.appended = [];
    if (!ids.length) return;
    await removeItems(this.conversationId, ids).catch((err) => log.error({ err }, "could not take a failed response's turn out of its conversation"));
  }
}
