// The SCIM endpoints (RFC 7644 §3.2) under /scim/v2, as one table: a method and a resource path
// to the function that answers it. The host (transport/next/scim-handler.ts) authenticates the
// token, reads the body and writes the answer; everything here is scoped to the token's workspace.
import { listResponse, resourceTypes, schemas, serviceProviderConfig } from "./scim-schemas";
import { ScimError } from "./scim-error";
import type { ScimContext } from "./scim-input";
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from "./scim-users";
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "./scim-groups";

export type ScimRequest = { method: string; segments: string[]; params: URLSearchParams; body: unknown };
export type ScimAnswer = { status: number; body: unknown | null };

type Handler = (ctx: ScimContext, req: ScimRequest, id: string) => Promise<ScimAnswer>;
type Route = { collection: string; withId: boolean; handlers: Record<string, Handler> };

const ok = (body: unknown): ScimAnswer => ({ status: 200, body });
const created = (body: unknown): ScimAnswer => ({ status: 201, body });
const noContent: ScimAnswer = { status: 204, body: null };

function oneOf<T extends { id: string }>(items: T[], id: string, what: string): T {
  const item = items.find((i) => i.id === id);
  if (!item) throw new ScimError(404, `No ${what} ${JSON.stringify(id)}.`);
  return item;
}

const ROUTES: Route[] = [
  { collection: "serviceproviderconfig", withId: false, handlers: { GET: async (ctx) => ok(serviceProviderConfig(ctx.baseUrl, docsUrl(ctx))) } },
  {
    collection: "schemas",
    withId: false,
    handlers: { GET: async (ctx) => ok(listOf(schemas(ctx.baseUrl))) },
  },
  { collection: "schemas", withId: true, handlers: { GET: async (ctx, _r, id) => ok(oneOf(schemas(ctx.baseUrl), id, "schema")) } },
  { collection: "resourcetypes", withId: false, handlers: { GET: async (ctx) => ok(listOf(resourceTypes(ctx.baseUrl))) } },
  { collection: "resourcetypes", withId: true, handlers: { GET: async (ctx, _r, id) => ok(oneOf(resourceTypes(ctx.baseUrl), id, "resource type")) } },
  {
    collection: "users",
    withId: false,
    handlers: { GET: async (ctx, r) => ok(await listUsers(ctx, r.params)), POST: async (ctx, r) => created(await createUser(ctx, r.body)) },
  },
  {
    collection: "users",
    withId: true,
    handlers: {
      GET: async (ctx, r, id) => ok(await getUser(ctx, id, r.params)),
      PUT: async (ctx, r, id) => ok(await replaceUser(ctx, id, r.body)),
      PATCH: async (ctx, r, id) => ok(await patchUser(ctx, id, r.body)),
      DELETE: async (ctx, _r, id) => (await deleteUser(ctx, id), noContent),
    },
  },
  {
    collection: "groups",
    withId: false,
    handlers: { GET: async (ctx, r) => ok(await listGroups(ctx, r.params)), POST: async (ctx, r) => created(await createGroup(ctx, r.body)) },
  },
  {
    collection: "groups",
    withId: true,
    handlers: {
      GET: async (ctx, r, id) => ok(await getGroup(ctx, id, r.params)),
      PUT: async (ctx, r, id) => ok(await replaceGroup(ctx, id, r.body)),
      PATCH: async (ctx, r, id) => ok(await patchGroup(ctx, id, r.body)),
      DELETE: async (ctx, _r, id) => (await deleteGroup(ctx, id), noContent),
    },
  },
];

const listOf = <T>(items: T[]) => listResponse(items, items.length, 1);

function docsUrl(ctx: ScimContext): string {
  return `${ctx.baseUrl.replace(/\/scim\/v2$/, "")}/docs`;
}

/** Resources this service does not offer, answered 501 rather than 404 so a client knows it is the feature, not the path. */
const NOT_OFFERED = new Set(["bulk", "me"]);

/** Finds the route of a request, or the SCIM error saying why there is none. */
export async function runScim(ctx: ScimContext, req: ScimRequest): Promise<ScimAnswer> {
  const [first, id, ...rest] = req.segments;
  const collection = (first ?? "").toLowerCase();
  if (NOT_OFFERED.has(collection)) throw new ScimError(501, `/${first} is not supported by this service (see /ServiceProviderConfig).`);
  const routes = ROUTES.filter((r) => r.collection === collection && r.withId === (id !== undefined));
  if (!routes.length || rest.length) throw new ScimError(404, `No SCIM endpoint at /${req.segments.join("/")}. Endpoints: /Users, /Groups, /ServiceProviderConfig, /Schemas, /ResourceTypes.`);
  const handler = routes[0]!.handlers[req.method];
  if (!handler) throw new ScimError(405, `${req.method} is not allowed on /${req.segments.join("/")}; allowed: ${Object.keys(routes[0]!.handlers).join(", ")}.`);
  return handler(ctx, req, id ?? "");
}
