// Usage events written the way the ledger writes them (one applyMovements statement, which also
// keeps the daily rollups the usage summaries read), at the times a test chooses.
import { db } from "../server/infra/db/client";
import { newId } from "../server/kernel/ids";
import { applyMovements, usageMovement } from "../server/ledger/movements";

export type TestUsage = {
  id?: string;
  workspaceId: string;
  apiKeyId?: string | null;
  modelId: string;
  endpoint: string;
  inputTokens?: number;
  outputTokens?: number;
  cost: string;
  planId?: string | null;
  subject?: string | null;
  createdAt?: Date;
};

export async function chargeUsage(events: TestUsage[]): Promise<void> {
  const movements = events.map((e) =>
    usageMovement({ workspaceId: e.workspaceId, apiKeyId: e.apiKeyId ?? null }, e.cost, {
      eventId: e.id ?? newId("req"),
      modelId: e.modelId,
      nodeId: null,
      endpoint: e.endpoint,
      inputTokens: e.inputTokens,
      outputTokens: e.outputTokens,
      planId: e.planId ?? null,
      subject: e.subject ?? null,
      at: (e.createdAt ?? new Date()).toISOString(),
    }),
  );
  await db.$transaction((tx) => applyMovements(tx, movements));
}
