import type { Prisma } from "../../generated/prisma/client";

export const nodeInclude = { models: { orderBy: { modelId: "asc" } } } satisfies Prisma.NodeInclude;
export type NodeRow = Prisma.NodeGetPayload<{ include: typeof nodeInclude }>;

/** A node as operators see it. The upstream key never leaves the database: only whether one is set. */
export type NodeView = {
  id: string;
  name: string;
  baseUrl: string;
  /** The node's wire format: openai, anthropic, gemini, azure, bedrock or vertex. */
  wire: string;
  hasApiKey: boolean;
  /** A cloud node's settings (region, project, location, api-version), and whether credentials were given to it (never shown). */
  cloud: Record<string, unknown> | null;
  hasCredentials: boolean;
  region: { city: string; country: string };
  weight: number;
  enabled: boolean;
  status: string;
  lastHealthCheckAt: string | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  models: { model: string; upstreamModel: string }[];
};

export function toNodeView(row: NodeRow): NodeView {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.baseUrl,
    wire: row.wire,
    hasApiKey: row.apiKeyEncrypted !== null,
    cloud: (row.cloud as Record<string, unknown> | null) ?? null,
    hasCredentials: row.credentialsEncrypted !== null,
    region: { city: row.city, country: row.country },
    weight: row.weight,
    enabled: row.enabled,
    status: row.status,
    lastHealthCheckAt: row.lastHealthCheckAt?.toISOString() ?? null,
    lastLatencyMs: row.lastLatencyMs,
    lastError: row.lastError,
    models: row.models.map((m) => ({ model: m.modelId, upstreamModel: m.upstreamModel })),
  };
}
