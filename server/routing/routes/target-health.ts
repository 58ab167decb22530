// Whether a route's target can serve now, from the node registry already in memory: a node that
// serves its model (the pinned one, when pinned) is online and its breaker is closed. And whether
// one in the caller's region does (prefer_region).
import { breakerOpen } from "../nodes/breaker";
import { getRoutableNodes, type RoutableNode } from "../nodes/node-registry";

const servesModel = (n: RoutableNode, model: string, node: string | undefined) => n.models.has(model) && (!node || n.id === node || n.name === node);

export type TargetHealth = {
  healthy: (model: string, node: string | undefined) => boolean;
  inRegion: (model: string, node: string | undefined) => boolean;
};

export async function targetHealth(region: string | null): Promise<TargetHealth> {
  const nodes = await getRoutableNodes();
  const now = Date.now();
  return {
    healthy: (model, node) => nodes.some((n) => n.online && servesModel(n, model, node) && !breakerOpen(n.id, now)),
    inRegion: (model, node) => region !== null && nodes.some((n) => n.online && n.country === region && servesModel(n, model, node)),
  };
}
