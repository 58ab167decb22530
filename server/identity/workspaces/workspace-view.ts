import { z } from "zod";
import { formatMoney } from "../../kernel/money";

export const ZWorkspaceView = z.object({
  id: z.string(),
  name: z.string(),
  balance: z.string(),
  createdAt: z.string(),
});
export type WorkspaceView = z.infer<typeof ZWorkspaceView>;

export function toWorkspaceView(row: { id: string; name: string; balance: { toString(): string }; createdAt: Date }): WorkspaceView {
  return { id: row.id, name: row.name, balance: formatMoney(row.balance), createdAt: row.createdAt.toISOString() };
}
