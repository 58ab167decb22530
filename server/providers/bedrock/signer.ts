// SigV4 for a Bedrock node's requests, with the AWS libraries: the node's own keys when it was
// given some, else the standard credential chain (environment, shared config and SSO, web
// identity, the container's or the instance's role), which caches its credentials and fetches
// them again before they expire. One signer per node (node-target.ts keeps it). The libraries
// are loaded by the node's first call: a gateway with no Bedrock node never loads them.
import type { CloudCredentials, Signer } from "../cloud";

/** Bedrock's signing name, for its runtime and its control plane alike. */
export const SIGNING_SERVICE = "bedrock";

async function credentialsOf(keys: CloudCredentials | null) {
  if (keys?.access_key_id && keys.secret_access_key) {
    return { accessKeyId: keys.access_key_id, secretAccessKey: keys.secret_access_key, ...(keys.session_token && { sessionToken: keys.session_token }) };
  }
  const { fromNodeProviderChain } = await import("@aws-sdk/credential-providers");
  return fromNodeProviderChain();
}

async function loadSigner(region: string, keys: CloudCredentials | null): Promise<Signer> {
  const [{ Sha256 }, { HttpRequest }, { SignatureV4 }] = await Promise.all([import("@aws-crypto/sha256-js"), import("@smithy/protocol-http"), import("@smithy/signature-v4")]);
  const signer = new SignatureV4({ credentials: await credentialsOf(keys), region, service: SIGNING_SERVICE, sha256: Sha256 });
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

export function sigV4Signer(region: string, keys: CloudCredentials | null): Signer {
  let ready: Promise<Signer> | undefined;
  return (request) => {
    ready ??= loadSigner(region, keys).catch((err: unknown) => {
      ready = undefined; // tried again by the next call
      throw err;
    });
    return ready.then((sign) => sign(request));
  };
}
