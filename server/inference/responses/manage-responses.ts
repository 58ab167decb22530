// Retrieve, delete, cancel and list the input items of stored responses, within the caller's workspace.
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import type { EventStream } from "../../kernel/event-stream";
import { abortBackground } from "./background";
import { wireInputItem } from "./items";
import { replayResponse } from "./replay";
import { toResponseObject } from "./response-object";
import type { RetrieveQuery } from "./schema";
import { findResponse, notFound, settleResponse } from "./store";

export async function getResponse(workspaceId: string, id: string): Promise<Record<string, unknown>> {
  return toResponseObject(await findResponse(workspaceId, id));
}

/** GET /v1/responses/{id}: the response, or with `stream=true` its events (replay.ts). */
export async function retrieveResponse(workspaceId: string, q: RetrieveQuery): Promise<Record<string, unknown> | EventStream> {
  if (q.stream === "true") return replayResponse(workspaceId, q.id, q.starting_after);
  return getResponse(workspaceId, q.id);
}

export async function deleteResponse(workspaceId: string, id: string): Promise<{ id: string; object: "response.deleted"; deleted: true }> {
  const { count } = await db.storedResponse.deleteMany({ where: { id, workspaceId } });
  if (!count) throw notFound(id);
  abortBackground(id);
  return { id, object: "response.deleted", deleted: true };
}

/** Only background responses can be cancelled; cancelling a finished one returns it unchanged. */
export async function cancelResponse(workspaceId: string, id: string): Promise<Record<string, unknown>> {
  const found = await findResponse(workspaceId, id);
  if (!found.background) throw errors.invalidRequest("Only responses created with background: true can be cancelled.", "response_id");
  const moved = await settleResponse(id, { status: "cancelled", output: found.output, usage: found.usage, error: null, incompleteDetails: null, completedAt: new Date() });
  if (moved) abortBackground(id);
  return toResponseObject(await findResponse(workspaceId, id));
}

export type InputItemsQuery = { id: string; limit: number; order: "asc" | "desc"; after?: string; before?: string };

/** A page of the response's input items, paginated like OpenAI's lists (after/before by item id). */
export async function listInputItems(workspaceId: string, q: InputItemsQuery) {
  const { inputItems } = await findResponse(workspaceId, q.id);
  const ordered = q.order === "asc" ? inputItems : [...inputItems].reverse();
  let start = 0;
  let end = ordered.length;
  if (q.after) {
    const at = ordered.findIndex((i) => i.id === q.after);
    if (at < 0) throw errors.invalidRequest(`No input item with id '${q.after}' in this response.`, "after");
    start = at + 1;
  }
  if (q.before) {
    const at = ordered.findIndex((i) => i.id === q.before);
    if (at < 0) throw errors.invalidRequest(`No input item with id '${q.before}' in this response.`, "before");
    end = at;
  }
  const window = ordered.slice(start, Math.max(start, end));
  const data = q.before && !q.after ? window.slice(-q.limit) : window.slice(0, q.limit);
  return {
    object: "list" as const,
    data: data.map(wireInputItem),
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: window.length > data.length,
  };
}
