// The model catalog held in memory: every request resolves its model here, not in the database.
// Read again at once when a catalog or node change is notified, and behind the calls every
// CATALOG_TTL_MS.
import { db } from "../../infra/db/client";
import { errors } from "../../kernel/errors";
import { Channel, listen } from "../../infra/db/notify";
import { modelInclude, type ModelRow } from "./model-row";
import { logFor } from "../../infra/telemetry/log";

const log = logFor("routing");

export type CatalogEntry = { row: ModelRow; readyNow: boolean };
export type Catalog = { byId: Map<string, CatalogEntry>; loadedAt: number };

const CATALOG_TTL_MS = 5000;
const state = globalThis as unknown as {
  gatewayCatalog?: Catalog;
  gatewayCatalogLoading?: Promise<Catalog>;
  /** Bumped by every invalidation: a load that started before one must not be kept. */
  gatewayCatalogGeneration?: number;
};
let subscribed: Promise<void> | undefined;

async function loadCatalog(): Promise<Catalog> {
  const [rows, ready] = await Promise.all([
    db.model.findMany({ include: modelInclude, orderBy: [{ type: "asc" }, { id: "asc" }] }),
    db.nodeModel.findMany({
      where: { node: { enabled: true, status: "online" } },
      select: { modelId: true },
      distinct: ["modelId"],
    }),
  ]);
  const readyIds = new Set(ready.map((r) => r.modelId));
  const byId = new Map(rows.map((row) => [row.id, { row, readyNow: readyIds.has(row.id) && row.pricingStatus !== "unpriced" }]));
  return { byId, loadedAt: Date.now() };
}

function invalidate(): void {
  state.gatewayCatalogGeneration = (state.gatewayCatalogGeneration ?? 0) + 1;
  state.gatewayCatalog = undefined;
  state.gatewayCatalogLoading = undefined; // the next call reads again, after the change
}

function subscribe(): void {
  subscribed ??= Promise.all([listen(Channel.catalogChanged, invalidate), listen(Channel.nodesChanged, invalidate)])
    .then(() => undefined)
    .catch((err) => {
      subscribed = undefined;
      log.error({ err }, "catalog cache: LISTEN failed");
    });
}

function reload(): Promise<Catalog> {
  const generation = state.gatewayCatalogGeneration ?? 0;
  const loading = (state.gatewayCatalogLoading ??= loadCatalog()
    .then((c) => {
      if ((state.gatewayCatalogGeneration ?? 0) === generation) state.gatewayCatalog = c;
      return c;
    })
    .finally(() => {
      if (state.gatewayCatalogLoading === loading) state.gatewayCatalogLoading = undefined;
    }));
  return loading;
}

/**
 * The catalog. A change is notified, and the next call waits for the catalog read after it. Past
 * CATALOG_TTL_MS (a safety net for a missed notification) the call is served from the catalog it
 * has while it is read again behind it: every call arriving during a read used to wait for it
 * (a read takes 3-8 ms under steady load, 56-108 ms as a process's first; docs/BENCHMARKS.md,
 * "After a quiet moment"). A read that fails keeps the catalog held; the next call tries again.
 */
export async function getCatalog(): Promise<Catalog> {
  subscribe();
  const current = state.gatewayCatalog;
  if (!current) return reload();
  if (Date.now() - current.loadedAt >= CATALOG_TTL_MS && !state.gatewayCatalogLoading) {
    reload().catch((err) => log.error({ err }, "catalog cache: reading the catalog again failed; the one held is kept"));
  }
  return current;
}

export { invalidate as invalidateCatalog };

/**
 * Whether a caller of the workspace may see the model: every catalog model, but a fine-tuned one
 * (and its checkpoints) only by the workspace that owns it. A field compare on the cached row.
 * `null`: a caller of no workspace (operator tools), which sees no workspace's models.
 */
export function visibleTo(row: Pick<ModelRow, "ownerWorkspaceId">, workspaceId: string | null): boolean {
  return row.ownerWorkspaceId === null || row.ownerWorkspaceId === workspaceId;
}

/** The catalog's models a caller of the workspace may see, in catalog order. */
export function entriesFor(catalog: Catalog, workspaceId: string | null): CatalogEntry[] {
  return [...catalog.byId.values()].filter((e) => visibleTo(e.row, workspaceId));
}

/** The catalog entry of a model the workspace may see, or undefined (unknown, or another workspace's). */
export function entryFor(catalog: Catalog, id: string, workspaceId: string | null): CatalogEntry | undefined {
  const entry = catalog.byId.get(id);
  return entry && visibleTo(entry.row, workspaceId) ? entry : undefined;
}

/**
 * Finds a model in the catalog for a caller of the workspace, or throws 404 model_not_found:
 * another workspace's fine-tuned model answers exactly as an unknown id.
 */
export async function findModel(id: string, workspaceId: string | null): Promise<CatalogEntry> {
  const entry = entryFor(await getCatalog(), id, workspaceId);
  if (!entry) throw errors.modelNotFound(id);
  return entry;
}

/**
 * The model a call of the workspace is for: 404 model_not_found when the catalog has none the
 * workspace may see (visibleTo), and 400
 * model_not_priced for one imported without a price (an Anthropic or Gemini node's list gives
 * none): it is never billed at $0.
 */
export async function resolveModel(id: string, workspaceId: string | null): Promise<CatalogEntry> {
  const entry = await findModel(id, workspaceId);
  if (entry.row.pricingStatus === "unpriced") {
    throw errors.invalidRequest(`\`${id}\` has no price yet: an operator must price it (npm run cli -- model price) before it is served.`, "model", "model_not_priced");
  }
  return entry;
}
