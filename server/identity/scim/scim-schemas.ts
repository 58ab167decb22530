// What this SCIM service offers, as RFC 7643 §5–7 describes a service provider to a client:
// ServiceProviderConfig, ResourceTypes and Schemas. Static: the same for every workspace.
export const SCHEMA = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  list: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patch: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  config: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema",
} as const;

/** The most resources one list answer holds (`count` above it is cut to it). */
export const MAX_RESULTS = 200;

export function serviceProviderConfig(baseUrl: string, docsUrl: string) {
  return {
    schemas: [SCHEMA.config],
    documentationUri: docsUrl,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The workspace's SCIM token: `npm run cli -- scim token <workspace-id>` or the workspace settings.",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

type Attr = {
  name: string;
  type: "string" | "boolean" | "complex" | "reference";
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: "readOnly" | "readWrite" | "immutable";
  uniqueness?: "none" | "server";
  subAttributes?: Attr[];
  referenceTypes?: string[];
};

const attribute = (a: Attr): Record<string, unknown> => ({
  name: a.name,
  type: a.type,
  multiValued: a.multiValued ?? false,
  required: a.required ?? false,
  caseExact: a.caseExact ?? false,
  mutability: a.mutability ?? "readWrite",
  returned: "default",
  uniqueness: a.uniqueness ?? "none",
  ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attribute) } : {}),
  ...(a.referenceTypes ? { referenceTypes: a.referenceTypes } : {}),
});

const USER_ATTRIBUTES: Attr[] = [
  { name: "userName", type: "string", required: true, uniqueness: "server" },
  {
    name: "name",
    type: "complex",
    subAttributes: [
      { name: "formatted", type: "string" },
      { name: "givenName", type: "string" },
      { name: "familyName", type: "string" },
    ],
  },
  { name: "displayName", type: "string" },
  {
    name: "emails",
    type: "complex",
    multiValued: true,
    subAttributes: [
      { name: "value", type: "string" },
      { name: "type", type: "string" },
      { name: "primary", type: "boolean" },
    ],
  },
  { name: "active", type: "boolean" },
  { name: "externalId", type: "string", caseExact: true },
  {
    name: "groups",
    type: "complex",
    multiValued: true,
    mutability: "readOnly",
    subAttributes: [
      { name: "value", type: "string", mutability: "readOnly" },
      { name: "display", type: "string", mutability: "readOnly" },
    ],
  },
];

const GROUP_ATTRIBUTES: Attr[] = [
  { name: "displayName", type: "string", required: true, uniqueness: "server" },
  { name: "externalId", type: "string", caseExact: true },
  {
    name: "members",
    type: "complex",
    multiValued: true,
    subAttributes: [
      { name: "value", type: "string", mutability: "immutable" },
      { name: "display", type: "string", mutability: "readOnly" },
      { name: "$ref", type: "reference", mutability: "immutable", referenceTypes: ["User"] },
    ],
  },
];

export function schemas(baseUrl: string) {
  const schema = (id: string, name: string, attrs: Attr[]) => ({
    schemas: [SCHEMA.schema],
    id,
    name,
    description: `${name} of a workspace`,
    attributes: attrs.map(attribute),
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${id}` },
  });
  return [schema(SCHEMA.user, "User", USER_ATTRIBUTES), schema(SCHEMA.group, "Group", GROUP_ATTRIBUTES)];
}

export function resourceTypes(baseUrl: string) {
  const type = (name: "User" | "Group", endpoint: string, schema: string) => ({
    schemas: [SCHEMA.resourceType],
    id: name,
    name,
    endpoint,
    description: name === "User" ? "A member of the workspace" : "A group of members, mapped to a role",
    schema,
    schemaExtensions: [],
    meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/${name}` },
  });
  return [type("User", "/Users", SCHEMA.user), type("Group", "/Groups", SCHEMA.group)];
}

/** A list answer (RFC 7644 §3.4.2). */
export function listResponse<T>(resources: T[], total: number, startIndex: number) {
  return { schemas: [SCHEMA.list], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
