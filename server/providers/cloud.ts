// The cloud wire formats (azure, bedrock, vertex) as data: a node's settings (where the service
// is, which api-version), the credentials given to it (sealed at rest as JSON, like node keys),
// and how its calls authenticate: static headers, and for the clouds whose tokens expire or whose
// requests are signed, a signer run on each request (its token cache lives in it, one per node).
import { z } from "zod";

export const CLOUD_WIRES = ["azure", "bedrock", "vertex"] as const;
export type CloudWireName = (typeof CLOUD_WIRES)[number];

const region = z.string().regex(/^[a-z0-9-]{2,40}$/, "a region or location name such as us-east-1 or europe-west4");

/** A cloud node's settings (no secret here: the credentials are sealed apart). */
export const ZCloudSettings = z
  .object({
    /** AWS region (bedrock). */
    region: region.optional(),
    /** Google Cloud project (vertex). */
    project: z.string().regex(/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, "a Google Cloud project id").optional(),
    /** Google Cloud location (vertex): a region, or `global`. */
    location: region.optional(),
    /** Azure OpenAI's api-version for deployment paths; absent: the OpenAI-compatible /openai/v1/ paths. */
    apiVersion: z.string().regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, "an api-version such as 2024-10-21").optional(),
    /** Azure: authenticate with a managed identity (true: system-assigned; a client id: user-assigned). */
    managedIdentity: z.union([z.literal(true), z.string().min(1)]).optional(),
  })
  .strict();
export type CloudSettings = z.infer<typeof ZCloudSettings>;

/** Credentials given to a cloud node (sealed as JSON in Node.credentialsEncrypted). */
export const ZCloudCredentials = z
  .object({
    /** AWS access keys (bedrock). */
    access_key_id: z.string().min(1).optional(),
    secret_access_key: z.string().min(1).optional(),
    session_token: z.string().min(1).optional(),
    /** A Microsoft Entra ID application (azure, client credentials). */
    tenant_id: z.string().min(1).optional(),
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    /** A Google service account key file's JSON (vertex). */
    service_account: z.looseObject({ type: z.string(), client_email: z.string(), private_key: z.string() }).optional(),
  })
  .strict();
export type CloudCredentials = z.infer<typeof ZCloudCredentials>;

/** A request about to be sent to a node, as a signer sees it. */
export type SignableRequest = { method: string; url: URL; headers: Record<string, string>; body?: string };
/** Headers that authenticate one request (a fresh token, a signature over it). */
export type Signer = (request: SignableRequest) => Promise<Record<string, string>>;

/** How a node's calls authenticate: headers made once, and a signer run per request when the cloud needs one. */
export type NodeAuth = { headers: Record<string, string>; sign?: Signer };

export function isCloudWire(wire: string | undefined): wire is CloudWireName {
  return (CLOUD_WIRES as readonly string[]).includes(wire ?? "");
}
