// A Vertex node's access tokens, from google-auth-library: its service account key (the node's
// sealed credentials) signs a JWT exchanged for a token, or, with no key, Application Default
// Credentials (GOOGLE_APPLICATION_CREDENTIALS, or the metadata server of the GKE / Cloud Run /
// Compute Engine workload the gateway runs as). The client caches its token and refreshes it
// before it expires, and one client lives as long as the node's settings (node-target.ts), so a
// token is fetched once per hour per node, not per call.
import type { JWT } from "google-auth-library";
import type { CloudCredentials, Signer } from "../cloud";
import { UpstreamFailure } from "../upstream-failure";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];
/** Where the library exchanges a service account's JWT (it names no other). */
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

type ServiceAccount = NonNullable<CloudCredentials["service_account"]>;
/** Gets the current token (the client's cached one while it is fresh). */
type TokenSource = () => Promise<string | null | undefined>;

/**
 * The key file's own `token_uri` (a private or sovereign cloud's, a test's stand-in), which the
 * library ignores: its token request is sent there, the JWT's audience made it.
 */
function tokenUriOf(key: ServiceAccount): string | undefined {
  const uri = typeof key.token_uri === "string" ? key.token_uri : undefined;
  if (!uri || uri === GOOGLE_TOKEN_URL) return undefined;
  // The signed assertion is as good as a token for an hour: it travels over TLS, or to this machine only.
  const url = new URL(uri);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname))) {
    throw new Error("the key file's token_uri must be an https URL");
  }
  return uri;
}

/** google-auth-library, loaded by a Vertex node's first call (a gateway with no Vertex node never loads it). */
const googleAuthLibrary = () => import("google-auth-library");

/** google-auth-library's client for a service account key, its token requests sent to the key's `token_uri`. */
export async function serviceAccountClient(key: ServiceAccount): Promise<JWT> {
  // Only a service account key: other credential files (external accounts) may fetch URLs or run programs of their own.
  if (key.type !== "service_account") throw new Error(`the credentials are a "${key.type}" file, not a service account key`);
  const tokenUri = tokenUriOf(key);
  const { JWT, gaxios } = await googleAuthLibrary();
  const transporter = new gaxios.Gaxios();
  if (tokenUri) {
    transporter.interceptors.request.add({
      resolved: async (options) => (String(options.url) === GOOGLE_TOKEN_URL ? { ...options, url: new URL(tokenUri) } : options),
    });
  }
  const keyId = typeof key.private_key_id === "string" ? key.private_key_id : undefined;
  return new JWT({ email: key.client_email, key: key.private_key, keyId, scopes: SCOPES, transporter, ...(tokenUri && { additionalClaims: { aud: tokenUri } }) });
}

async function serviceAccountTokens(key: ServiceAccount): Promise<TokenSource> {
  const client = await serviceAccountClient(key);
  return async () => (await client.getAccessToken()).token;
}

async function applicationDefaultTokens(): Promise<TokenSource> {
  const { GoogleAuth } = await googleAuthLibrary();
  const auth = new GoogleAuth({ scopes: SCOPES });
  return () => auth.getAccessToken();
}

/** What went wrong, without the assertion, the token or the key (a JWT or a long base64 run in a message is cut out). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/[\w-]{16,}\.[\w-]{16,}\.[\w-]{8,}/g, "[jwt]").replace(/[A-Za-z0-9+/=_-]{64,}/g, "[redacted]").slice(0, 300);
}

/** A signer adding a fresh bearer token to each request; a token that cannot be had fails the call as the operator's to fix (a 502). */
export function googleSigner(credentials: CloudCredentials | null): Signer {
  const key = credentials?.service_account;
  let tokens: Promise<TokenSource> | undefined;
  const source = key ? `the service account ${key.client_email}` : "Application Default Credentials (workload identity, the metadata server)";
  return async () => {
    try {
      tokens ??= (key ? serviceAccountTokens(key) : applicationDefaultTokens()).catch((err: unknown) => {
        tokens = undefined; // made again by the next call
        throw err;
      });
      const token = await (await tokens)();
      if (!token) throw new Error("no token was given");
      return { authorization: `Bearer ${token}` };
    } catch (err) {
      throw new UpstreamFailure("credentials", `no Google access token could be had for ${source}: ${reasonOf(err)}`, 502);
    }
  };
}
