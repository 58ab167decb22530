// Stored responses, always looked up within the caller's workspace: another workspace's id is
// answered exactly like an unknown one (404).
import { EventEmitter } from "node:events";
import type { Prisma } from "../../generated/prisma/client";
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import type { Item } from "./items";
import type { ResponseState, ResponseStatus } from "./response-object";
import type { ResponseCreate } from "./schema";

type Row = Prisma.StoredResponseGetPayload<object>;

export function stateOf(row: Row): ResponseState & { inputItems: Item[] } {
  return {
    id: row.id,
    modelId: row.modelId,
    status: row.status,
    background: row.background,
    store: row.store,
    previousResponseId: row.previousResponseId,
    request: row.request as unknown as ResponseCreate,
    inputItems: row.inputItems as unknown as Item[],
    output: row.output as unknown as Item[],
    usage: row.usage as ResponseState["usage"],
    error: row.error as ResponseState["error"],
    incompleteDetails: row.incompleteDetails as ResponseState["incompleteDetails"],
    metadata: row.metadata as Record<string, string>,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

export const notFound = (id: string) => errors.notFound(`No response with id '${id}' found.`, "response_not_found", "response_id");

export async function findResponse(workspaceId: string, id: string) {
  const row = await db.storedResponse.findFirst({ where: { id, workspaceId } });
  if (!row) throw notFound(id);
  return stateOf(row);
}

export async function insertResponse(workspaceId: string, apiKeyId: string | null, s: ResponseState, inputItems: Item[]): Promise<void> {
  await db.storedResponse.create({
    data: {
      id: s.id,
      workspaceId,
      apiKeyId,
      modelId: s.modelId,
      status: s.status,
      background: s.background,
      store: s.store,
      previousResponseId: s.previousResponseId,
      request: s.request as unknown as Prisma.InputJsonValue,
      inputItems: inputItems as unknown as Prisma.InputJsonValue,
      output: s.output as unknown as Prisma.InputJsonValue,
      usage: (s.usage ?? undefined) as Prisma.InputJsonValue | undefined,
      error: (s.error ?? undefined) as Prisma.InputJsonValue | undefined,
      incompleteDetails: (s.incompleteDetails ?? undefined) as Prisma.InputJsonValue | undefined,
      metadata: s.metadata,
      createdAt: s.createdAt,
      completedAt: s.completedAt,
    },
  });
}

/** Removes a response that was stored for a call which then failed (whatever its workspace). */
export async function deleteStoredResponse(id: string): Promise<void> {
  await db.storedResponse.deleteMany({ where: { id } });
}

export const OPEN: ResponseStatus[] = ["queued", "in_progress"];

/** Responses settled by this process, by id: wakes the streams that follow them here at once. */
const settled = new EventEmitter().setMaxListeners(0);

/** Resolves when this process settles response `id`, or after `ms` (a change made elsewhere is seen by looking again). */
export function settledHereOrAfter(id: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      settled.off(id, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    settled.once(id, done);
  });
}

/**
 * Moves a response on, but only from an open status: a cancelled (or otherwise finished)
 * response is never overwritten. Returns whether it moved.
 */
export async function settleResponse(id: string, s: Pick<ResponseState, "status" | "output" | "usage" | "error" | "incompleteDetails" | "completedAt">, from = OPEN): Promise<boolean> {
  const { count } = await db.storedResponse.updateMany({
    where: { id, status: { in: from } },
    data: {
      status: s.status,
      output: s.output as unknown as Prisma.InputJsonValue,
      usage: (s.usage ?? undefined) as Prisma.InputJsonValue | undefined,
      error: (s.error ?? undefined) as Prisma.InputJsonValue | undefined,
      incompleteDetails: (s.incompleteDetails ?? undefined) as Prisma.InputJsonValue | undefined,
      completedAt: s.completedAt,
    },
  });
  if (count === 1) settled.emit(id);
  return count === 1;
}

/** The whole conversation up to (and including) a stored response: its chain's inputs and outputs. */
export async function conversationUpTo(workspaceId: string, id: string): Promise<Item[]> {
  const turns: Item[][] = [];
  const seen = new Set<string>();
  for (let next: string | null = id; next; ) {
    if (seen.has(next)) break;
    seen.add(next);
    const s = await findResponse(workspaceId, next);
    turns.unshift([...s.inputItems, ...s.output]);
    next = s.previousResponseId;
  }
  return turns.flat();
}
