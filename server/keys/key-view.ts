import { z } from "zod";

export const ZKeyView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  workspaceId: z.string(),
  createdById: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type KeyView = z.infer<typeof ZKeyView>;

type KeyRow = {
  id: string;
  name: string;
  prefix: string;
  workspaceId: string;
  createdById: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
};

export function toKeyView(row: KeyRow): KeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    workspaceId: row.workspaceId,
    createdById: row.createdById,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
