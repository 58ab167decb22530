import { entriesFor, getCatalog } from "../catalog/catalog-cache";
import { db } from "../../infra/db/client";

/**
 * `legal.geoip` says how the gateway treats client location: "disabled" means it performs no
 * IP geolocation of callers and restricts no region; `regions` are where operators declared
 * their nodes to be when registering them.
 */
export const GEOIP_POLICY = "disabled";

export type NetworkStatus = {
  nodesOnline: number;
  regions: { city: string; country: string; nodes: number; updatedAt: string }[];
  modelsAvailable: number;
  capabilities: Record<string, number>;
  legal: { geoip: string };
};

const CAPABILITY_FLAGS = [
  ["tools", "capTools"],
  ["json_mode", "capJsonMode"],
  ["structured_output", "capStructuredOutput"],
  ["streaming", "capStreaming"],
  ["reasoning", "capReasoning"],
] as const;

/** The network as a caller of the workspace sees it (its own fine-tuned models counted, no other workspace's). */
export async function networkStatus(workspaceId: string | null): Promise<NetworkStatus> {
  const [online, catalog] = await Promise.all([
    db.node.findMany({
      where: { enabled: true, status: "online" },
      select: { city: true, country: true, lastHealthCheckAt: true },
    }),
    getCatalog(),
  ]);
  const regions = new Map<string, NetworkStatus["regions"][number]>();
  for (const n of online) {
    const key = `${n.country}/${n.city}`;
    const checked = n.lastHealthCheckAt?.toISOString() ?? "";
    const region = regions.get(key) ?? { city: n.city, country: n.country, nodes: 0, updatedAt: checked };
    region.nodes += 1;
    if (checked > region.updatedAt) region.updatedAt = checked;
    regions.set(key, region);
  }
  const ready = entriesFor(catalog, workspaceId).filter((e) => e.readyNow && !e.row.deprecated).map((e) => e.row);
  const capabilities: Record<string, number> = {};
  for (const row of ready) {
    capabilities[row.type] = (capabilities[row.type] ?? 0) + 1;
    for (const [name, column] of CAPABILITY_FLAGS) if (row[column]) capabilities[name] = (capabilities[name] ?? 0) + 1;
  }
  return {
    nodesOnline: online.length,
    regions: [...regions.values()].sort((a, b) => a.country.localeCompare(b.country) || a.city.localeCompare(b.city)),
    modelsAvailable: ready.length,
    capabilities,
    legal: { geoip: GEOIP_POLICY },
  };
}
