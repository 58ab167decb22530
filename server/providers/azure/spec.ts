// Azure OpenAI: how a node authenticates, where the service is, and its model list (cloud.ts).
// A node authenticates with its resource's key (`api-key`), or with a Microsoft Entra ID token:
// an Entra application's (client credentials) or the host's managed identity's.
import type { TokenCredential } from "@azure/identity";
import { errors } from "../../kernel/errors";
import type { CloudCredentials, CloudSettings, NodeAuth } from "../cloud";
import type { CloudWireSpec } from "../cloud-spec";
import type { UpstreamTarget } from "../http";
import { getListJson } from "../list-json";
import type { UpstreamModel } from "../openai-compatible/list-models";
import { UpstreamFailure } from "../upstream-failure";
import { wireHeaders } from "../wire";
import { entraSigner } from "./entra-token";
import { modelsPath } from "./paths";
import { withCredentialHint } from "./refused-credentials";

/**
 * The Entra credential a node's settings ask for, made on first use. Its authority is Entra's
 * public cloud unless the operator sets AZURE_AUTHORITY_HOST (read by @azure/identity itself):
 * an authority the operator chose has nothing to be validated against, and a gateway with no
 * route to Entra's instance discovery (a private cloud, Azure Stack) could not use it otherwise.
 */
function entraCredential(settings: CloudSettings, credentials: CloudCredentials | null): (() => Promise<TokenCredential>) | null {
  const { tenant_id, client_id, client_secret } = credentials ?? {};
  if (settings.managedIdentity !== undefined) {
    const clientId = settings.managedIdentity === true ? undefined : settings.managedIdentity;
    return async () => new (await import("@azure/identity")).ManagedIdentityCredential(clientId ? { clientId } : {});
  }
  if (!tenant_id && !client_id && !client_secret) return null;
  if (!tenant_id || !client_id || !client_secret) {
    throw errors.invalidRequest("An azure node's Entra application needs --tenant-id, --client-id and --client-secret.", "credentials");
  }
  return async () => new (await import("@azure/identity")).ClientSecretCredential(tenant_id, client_id, client_secret, { disableInstanceDiscovery: true });
}

/** One credential per node, shared by its calls (node-target.ts keeps the auth as long as the node). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make().catch((err: unknown) => ((made = undefined), Promise.reject(err))));
}

function auth(settings: CloudSettings, apiKey: string | null, credentials: CloudCredentials | null): NodeAuth {
  const credential = entraCredential(settings, credentials);
  if (credential) return { headers: {}, sign: entraSigner(once(credential)) };
  if (apiKey) return { headers: wireHeaders("azure", apiKey) };
  throw errors.invalidRequest(
    "An azure node needs its resource's key (--api-key), an Entra application (--tenant-id, --client-id, --client-secret) or a managed identity (--managed-identity).",
    "apiKey",
  );
}

function endpoint(): string {
  throw errors.invalidRequest("An azure node needs its resource's address (--endpoint https://<resource>.openai.azure.com)", "url");
}

/** The node's deployments (their names are what the node's models map to). */
async function listModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]> {
  const url = new URL(`${target.baseUrl}${modelsPath(target)}`);
  const headers = { accept: "application/json", ...target.headers };
  const signal = AbortSignal.timeout(timeoutMs);
  const body = await withCredentialHint(async () => {
    const signed = target.sign ? await tokenFor(target, url, headers) : {};
    return getListJson(url, { ...headers, ...signed }, signal);
  });
  if (!Array.isArray(body.data)) throw new UpstreamFailure("protocol", "invalid /models response");
  return body.data.filter((m): m is UpstreamModel => typeof (m as UpstreamModel)?.id === "string");
}

/** The token for a list call; one that cannot be had is the failure the node's last error shows. */
async function tokenFor(target: UpstreamTarget, url: URL, headers: Record<string, string>): Promise<Record<string, string>> {
  try {
    return await target.sign!({ method: "GET", url, headers });
  } catch (err) {
    throw new UpstreamFailure("connect", `no Entra token: ${(err as Error).message}`);
  }
}

export const azureSpec: CloudWireSpec = { auth, endpoint, listModels };
