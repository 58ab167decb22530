// A SCIM 2.0 client as an identity provider's provisioning sends it: plain fetch with the bearer
// token and application/scim+json, PATCH bodies in Okta's shape (lower-case ops, a replace
// without a path, a member removed by a filter path) and in Entra ID's (capitalised ops, paths,
// "True"/"False" strings). `provisioningScript` drives a whole life cycle: people created,
// patched, deactivated and deleted; groups created, members added and removed.
// Run against a gateway: npx tsx tests/scim/scim-client.ts <base_url> <token> <verified-domain>
export type ScimAnswer<T = Record<string, unknown>> = { status: number; body: T; contentType: string | null };

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";

export type PatchOperation = { op: string; path?: string; value?: unknown };

export class ScimClient {
  constructor(
    readonly baseUrl: string,
    private token: string,
  ) {}

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ScimAnswer<T>> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: "application/scim+json",
        ...(body === undefined ? {} : { "content-type": "application/scim+json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T, contentType: res.headers.get("content-type") };
  }

  createUser(userName: string, extra: Record<string, unknown> = {}) {
    const [local] = userName.split("@");
    return this.request("POST", "/Users", {
      schemas: [USER],
      userName,
      name: { givenName: local, familyName: "Tester" },
      emails: [{ value: userName, type: "work", primary: true }],
      active: true,
      ...extra,
    });
  }
  findUsers(filter: string, extra = "") {
    return this.request<{ totalResults: number; Resources: Array<Record<string, unknown>> }>("GET", `/Users?filter=${encodeURIComponent(filter)}${extra}`);
  }
  patch(kind: "Users" | "Groups", id: string, operations: PatchOperation[]) {
    return this.request("PATCH", `/${kind}/${id}`, { schemas: [PATCH_OP], Operations: operations });
  }
  /** Okta deactivates with a replace that has no path. */
  oktaSetActive(id: string, active: boolean) {
    return this.patch("Users", id, [{ op: "replace", value: { active } }]);
  }
  /** Entra ID: capitalised ops, a path, and the boolean as a string. */
  entraSetActive(id: string, active: boolean) {
    return this.patch("Users", id, [{ op: "Replace", path: "active", value: active ? "True" : "False" }]);
  }
  deleteUser(id: string) {
    return this.request("DELETE", `/Users/${id}`);
  }
  createGroup(displayName: string, memberIds: string[] = [], externalId?: string) {
    return this.request("POST", "/Groups", { schemas: [GROUP], displayName, ...(externalId ? { externalId } : {}), members: memberIds.map((value) => ({ value })) });
  }
  /** Entra ID adds members with a capitalised Add on the members path. */
  entraAddMembers(groupId: string, memberIds: string[]) {
    return this.patch("Groups", groupId, [{ op: "Add", path: "members", value: memberIds.map((value) => ({ value })) }]);
  }
  /** Entra ID removes members with a Remove carrying their values. */
  entraRemoveMembers(groupId: string, memberIds: string[]) {
    return this.patch("Groups", groupId, [{ op: "Remove", path: "members", value: memberIds.map((value) => ({ value })) }]);
  }
  /** Okta removes a member with a filter path. */
  oktaRemoveMember(groupId: string, memberId: string) {
    return this.patch("Groups", groupId, [{ op: "remove", path: `members[value eq "${memberId}"]` }]);
  }
  /** Okta renames a group with a replace whose value holds the id and the new name. */
  oktaRenameGroup(groupId: string, displayName: string) {
    return this.patch("Groups", groupId, [{ op: "replace", value: { id: groupId, displayName } }]);
  }
  deleteGroup(id: string) {
    return this.request("DELETE", `/Groups/${id}`);
  }
}

/** Every step of a provisioning life cycle, with the answers, for a test (or a person) to check. */
export async function provisioningScript(client: ScimClient, domain: string) {
  const tag = Math.random().toString(36).slice(2, 8);
  const steps: Record<string, ScimAnswer> = {};
  steps.config = await client.request("GET", "/ServiceProviderConfig");
  const ann = (steps.createAnn = await client.createUser(`ann-${tag}@${domain}`, { externalId: `okta-${tag}-ann` }));
  const bob = (steps.createBob = await client.createUser(`bob-${tag}@${domain}`, { externalId: `entra-${tag}-bob` }));
  const annId = ann.body.id as string;
  const bobId = bob.body.id as string;
  steps.lookup = await client.findUsers(`userName eq "ANN-${tag}@${domain.toUpperCase()}"`);
  steps.entraRename = await client.patch("Users", bobId, [
    { op: "Replace", path: "name.familyName", value: "Builder" },
    { op: "Replace", path: "displayName", value: "Bob Builder" },
  ]);
  const group = (steps.createGroup = await client.createGroup(`Engineers ${tag}`, [annId], `grp-${tag}`));
  const groupId = group.body.id as string;
  steps.addBob = await client.entraAddMembers(groupId, [bobId]);
  steps.removeAnn = await client.oktaRemoveMember(groupId, annId);
  steps.renameGroup = await client.oktaRenameGroup(groupId, `Engineering ${tag}`);
  steps.deactivateAnn = await client.oktaSetActive(annId, false);
  steps.deactivateBob = await client.entraSetActive(bobId, false);
  steps.reactivateBob = await client.entraSetActive(bobId, true);
  steps.deleteAnn = await client.deleteUser(annId);
  steps.getAnn = await client.request("GET", `/Users/${annId}`);
  steps.group = await client.request("GET", `/Groups/${groupId}`);
  steps.deleteGroup = await client.deleteGroup(groupId);
  return { steps, annId, bobId, groupId, tag };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [baseUrl, token, domain] = process.argv.slice(2);
  if (!baseUrl || !token || !domain) {
    process.stderr.write("usage: npx tsx tests/scim/scim-client.ts <base_url> <token> <verified-domain>\n");
    process.exit(2);
  }
  const { steps } = await provisioningScript(new ScimClient(baseUrl, token), domain);
  for (const [name, answer] of Object.entries(steps)) process.stdout.write(`${name.padEnd(16)} ${answer.status}\n`);
}
