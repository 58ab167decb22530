// A node as calls see it (an UpstreamTarget) from its stored fields: its key opened, its auth
// headers made, and, for a cloud node, its signer. The signers hold token caches, so one is kept
// per node's settings and credentials (the node registry reloads every few seconds; its tokens
// must not be fetched again each time).
import { open } from "../infra/secret-box";
import { CLOUD_SPECS } from "./cloud-wires";
import { isCloudWire, ZCloudCredentials, ZCloudSettings, type NodeAuth } from "./cloud";
import type { UpstreamTarget } from "./http";
import { wireHeaders, type Wire } from "./wire";

/** A node's row as stored (any of the node tables' selections that carry these). */
export type StoredNode = { baseUrl: string; wire?: Wire; apiKeyEncrypted: string | null; cloud?: unknown; credentialsEncrypted?: string | null };

// On globalThis: Next.js bundles the health check and the /v1 route apart, each with its own copy
// of this module, and both must share one token per node.
const auths: Map<string, NodeAuth> = ((globalThis as { gatewayNodeAuths?: Map<string, NodeAuth> }).gatewayNodeAuths ??= new Map());
const MAX_AUTHS = 1000;

function cloudAuth(node: StoredNode, apiKey: string | null): NodeAuth {
  const cacheKey = `${node.wire}\n${JSON.stringify(node.cloud ?? {})}\n${node.apiKeyEncrypted ?? ""}\n${node.credentialsEncrypted ?? ""}`;
  let auth = auths.get(cacheKey);
  if (!auth) {
    const settings = ZCloudSettings.parse(node.cloud ?? {});
    const credentials = node.credentialsEncrypted ? ZCloudCredentials.parse(JSON.parse(open(node.credentialsEncrypted))) : null;
    auth = CLOUD_SPECS[node.wire as keyof typeof CLOUD_SPECS].auth(settings, apiKey, credentials);
    if (auths.size >= MAX_AUTHS) auths.delete(auths.keys().next().value!);
    auths.set(cacheKey, auth);
  }
  return auth;
}

export function nodeTarget(node: StoredNode): UpstreamTarget {
  const apiKey = node.apiKeyEncrypted ? open(node.apiKeyEncrypted) : null;
  if (!isCloudWire(node.wire)) return { baseUrl: node.baseUrl, apiKey, wire: node.wire, headers: wireHeaders(node.wire, apiKey) };
  const auth = cloudAuth(node, apiKey);
  return { baseUrl: node.baseUrl, apiKey, wire: node.wire, headers: auth.headers, sign: auth.sign, cloud: ZCloudSettings.parse(node.cloud ?? {}) };
}
