// What each cloud wire format (cloud.ts) provides beside its adapter.
import type { CloudCredentials, CloudSettings, NodeAuth } from "./cloud";
import type { UpstreamTarget } from "./http";
import type { UpstreamModel } from "./openai-compatible/list-models";

/** What each cloud format provides beside its adapter. */
export type CloudWireSpec = {
  /** How calls authenticate, from the node's settings, its key (an API key, when given one) and its credentials. Made once per node. */
  auth(settings: CloudSettings, apiKey: string | null, credentials: CloudCredentials | null): NodeAuth;
  /** The service's address from the settings, when the node was given no --endpoint; throws a 400 naming what is missing. */
  endpoint(settings: CloudSettings): string;
  /** The node's models (its model list, deployments or known publisher models), as the health check and discovery ask. */
  listModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]>;
};
