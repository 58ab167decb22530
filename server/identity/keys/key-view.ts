import { z } from "zod";
import { formatMoney } from "../../kernel/money";
import { KEY_PERMISSIONS } from "./permissions";

export const ZKeyView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  workspaceId: z.string(),
  createdById: z.string().nullable(),
  /** Who created the key; null when unknown (created by the CLI, or the user was deleted). */
  createdBy: z.object({ name: z.string().nullable(), email: z.string().nullable() }).nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** USD decimal strings: the key is refused once `spent` reaches `spendLimit`. */
  spendLimit: z.string().nullable(),
  spent: z.string(),
  /** The plan whose limits and caps apply to the key; null: the workspace's defaults. */
  planId: z.string().nullable(),
  /** The operation groups the key may call (permissions.ts); null: all of them. */
  permissions: z.array(z.enum(KEY_PERMISSIONS)).nullable(),
  /** The models the key may call, within its plan's; null: every model. */
  models: z.array(z.string()).nullable(),
  /** Patterns of the MCP tools the key may use (`github__*`), within its plan's; null: every tool. */
  tools: z.array(z.string()).nullable(),
  /** Whether the key's calls keep their bodies in the request log: true, false, or null (the workspace's setting). */
  capture: z.boolean().nullable(),
});
export type KeyView = z.infer<typeof ZKeyView>;

type Decimalish = { toString(): string };

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
  spendLimit: Decimalish | null;
  spent: Decimalish;
  planId: string | null;
  permissions: string[] | null;
  models: string[] | null;
  tools: string[] | null;
  captureBodies?: boolean | null;
  createdBy?: { name: string | null; email: string | null } | null;
};

/** Select this with a key row so its view can name the creator. */
export const KEY_CREATOR = { createdBy: { select: { name: true, email: true } } } as const;

export function toKeyView(row: KeyRow): KeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    workspaceId: row.workspaceId,
    createdById: row.createdById,
    createdBy: row.createdBy ? { name: row.createdBy.name, email: row.createdBy.email } : null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    spendLimit: row.spendLimit === null ? null : formatMoney(row.spendLimit),
    spent: formatMoney(row.spent),
    planId: row.planId,
    // Stored empty (or null, for rows older than the columns' default) means unrestricted.
    permissions: row.permissions?.length ? KEY_PERMISSIONS.filter((p) => row.permissions!.includes(p)) : null,
    models: row.models?.length ? row.models : null,
    tools: row.tools?.length ? row.tools : null,
    capture: row.captureBodies ?? null,
  };
}
