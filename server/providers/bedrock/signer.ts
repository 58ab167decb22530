// SigV4 for a Bedrock node's requests, with the AWS libraries: the node's own keys when it was
// given some, else the standard credential chain (environment, shared config and SSO, web
// identity, the container's or the instance's role), which caches its credentials and fetches
// them again before they expire. One signer per node (node-target.ts keeps it).
import { Sha256 } from "@aws-crypto/sha256-js";
import { fromNodeProviderChain } from "@aws-sdk/credential-providers";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import type { CloudCredentials, Signer } from "../cloud";

/** Bedrock's signing name, for its runtime and its control plane alike. */
export const SIGNING_SERVICE = "bedrock";

function credentialsOf(keys: CloudCredentials | null) {
  if (keys?.access_key_id && keys.secret_access_key) {
    return { accessKeyId: keys.access_key_id, secretAccessKey: keys.secret_access_key, ...(keys.session_token && { sessionToken: keys.session_token }) };
  }
  return fromNodeProviderChain();
}

export function sigV4Signer(region: string, keys: CloudCredentials | null): Signer {
  const signer = new SignatureV4({ credentials: credentialsOf(keys), region, service: SIGNING_SERVICE, sha256: Sha256 });
  return async ({ method, url, headers, body }) => {
    const request = new HttpRequest({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...headers, host: url.host },
      body,
    });
    const signed = await signer.sign(request);
    // The host is the one the connection sends anyway; only the headers signing added go back.
    const { host: _host, ...out } = signed.headers;
    return out;
  };
}
