// What a workspace's single sign-on connection is set with, and how it is shown. The client
// secret goes in and never comes out; a SAML connection is set from its identity provider's
// metadata (XML, or a URL the gateway fetches), read when it is set.
import { z } from "zod";

/** A domain as people type it: lower case, no trailing dot, at least one dot, plain LDH labels. */
export const ZDomain = z
  .string()
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/\.$/, ""))
  .pipe(z.string().max(253).regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a domain name such as example.com"));

/** A built-in role other than owner, or a custom role's name. */
const ZDefaultRole = z.string().trim().min(1).max(100).refine((r) => r !== "owner", "a new member cannot be made an owner");

const common = {
  domains: z.array(ZDomain).max(50).optional(),
  default_role: ZDefaultRole.optional(),
  require_sso: z.boolean().optional(),
  allow_idp_initiated: z.boolean().optional(),
};

export const ZSsoSetInput = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("oidc"),
    issuer: z.string().trim().url("must be a URL").max(500),
    client_id: z.string().trim().min(1).max(500),
    /** Optional when the connection is already OIDC with this issuer: the stored secret is kept. */
    client_secret: z.string().min(1).max(2000).optional(),
    ...common,
  }),
  z.object({
    kind: z.literal("saml"),
    metadata_url: z.string().trim().url("must be a URL").max(2000).optional(),
    metadata_xml: z.string().min(1).max(1_000_000).optional(),
    ...common,
  }),
]);
export type SsoSetInput = z.input<typeof ZSsoSetInput>;

export const ZSsoUrls = z.object({
  oidc_redirect_uri: z.string(),
  saml_acs_url: z.string(),
  saml_sp_entity_id: z.string(),
  saml_metadata_url: z.string(),
  sign_in_url: z.string(),
});
export type SsoUrls = z.infer<typeof ZSsoUrls>;

export const ZSsoDomainView = z.object({
  domain: z.string(),
  verified: z.boolean(),
  verified_by: z.string().nullable(),
  txt_name: z.string(),
  txt_value: z.string(),
});
export type SsoDomainView = z.infer<typeof ZSsoDomainView>;

export const ZSsoConnectionView = z.object({
  object: z.literal("sso_connection"),
  id: z.string(),
  kind: z.enum(["oidc", "saml"]),
  /** OIDC: the issuer; SAML: the identity provider's entity id. */
  issuer: z.string().nullable(),
  client_id: z.string().nullable(),
  client_secret_set: z.boolean(),
  saml_sso_url: z.string().nullable(),
  saml_metadata_url: z.string().nullable(),
  saml_cert_valid_to: z.number().int().nullable(),
  default_role: z.string(),
  require_sso: z.boolean(),
  allow_idp_initiated: z.boolean(),
  updated_at: z.number().int(),
});
export type SsoConnectionView = z.infer<typeof ZSsoConnectionView>;

export const ZSsoShow = z.object({
  connection: ZSsoConnectionView.nullable(),
  domains: z.array(ZSsoDomainView),
  urls: ZSsoUrls.nullable(),
});
export type SsoShow = z.infer<typeof ZSsoShow>;
