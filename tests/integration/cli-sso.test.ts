// npm run cli -- sso set|show|remove and domain verify, run as a real process against the test
// database; the provider is checked when the connection is set (discovery from a real OpenID
// provider, SAML metadata read); require-SSO refuses password sign-in and sign-up; the sso router
// is for owners only.
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { verifyDomain } from "../../server/identity/sso/domains";
import { authorizeWithPassword } from "../../server/identity/users/authorize-password";
import { signUp } from "../../server/identity/users/sign-up";
import { db } from "../../server/infra/db/client";
import { open } from "../../server/infra/secret-box";
import { cli } from "../cli-process";
import { newUser, teamWorkspace } from "../helpers-dashboard";
import { newWorkspace } from "../helpers";
import { startOidcIdp, type OidcIdp } from "../sso/oidc-idp";
import { startSamlIdp, type SamlIdp } from "../sso/saml-idp";

const baseUrl = inject("baseUrl");
let oidc: OidcIdp;
let saml: SamlIdp;
const dir = mkdtempSync(path.join(tmpdir(), "cli-sso-"));
const tag = () => randomBytes(4).toString("hex");

beforeAll(async () => {
  // The URLs the CLI prints are built on the gateway's configured origin.
  process.env.PUBLIC_BASE_URL = baseUrl;
  oidc = await startOidcIdp();
  saml = await startSamlIdp();
});

afterAll(async () => {
  await oidc?.close();
  await saml?.close();
});

const json = (r: { code: number | null; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe("sso commands", { timeout: 180_000 }, () => {
  it("sso set (OIDC) discovers the provider, seals the secret, lists the domains with their TXT records and the URLs; show, verify and remove follow, all audited", async () => {
    const { workspace } = await newWorkspace();
    const domain = `oidc-${tag()}.test`;
    const set = json(await cli("sso", "set", workspace.id, "--oidc-issuer", oidc.issuer, "--client-id", oidc.clientId, "--client-secret", oidc.clientSecret, "--domain", domain, "--domain", `Other-${domain}.`, "--default-role", "billing", "--json"));
    const id = set.connection.id as string;
    expect(id).toMatch(/^ssoc_/);
    expect(set.connection).toMatchObject({ object: "sso_connection", kind: "oidc", issuer: oidc.issuer, client_id: oidc.clientId, client_secret_set: true, default_role: "billing", require_sso: false, allow_idp_initiated: false });
    expect(set.urls).toEqual({
      oidc_redirect_uri: `${baseUrl}/api/sso/oidc/callback/${id}`,
      saml_acs_url: `${baseUrl}/api/sso/saml/acs/${id}`,
      saml_sp_entity_id: `${baseUrl}/api/sso/saml/metadata/${id}`,
      saml_metadata_url: `${baseUrl}/api/sso/saml/metadata/${id}`,
      sign_in_url: `${baseUrl}/api/sso/start?connection=${id}`,
    });
    expect(set.domains.map((d: { domain: string }) => d.domain).sort()).toEqual([domain, `other-${domain}`].sort());
    const row = await db.ssoConnection.findUniqueOrThrow({ where: { id } });
    expect(row.oidcClientSecret).not.toContain(oidc.clientSecret);
    expect(open(row.oidcClientSecret!)).toBe(oidc.clientSecret);

    const show = await cli("sso", "show", workspace.id, "--json");
    expect(show.stdout).not.toContain(oidc.clientSecret);
    const shown = json(show);
    const d = shown.domains.find((x: { domain: string }) => x.domain === domain);
    const token = (await db.ssoDomain.findFirstOrThrow({ where: { domain, connectionId: id } })).verificationToken;
    expect(d).toEqual({ domain, verified: false, verified_by: null, txt_name: `_gateway-verification.${domain}`, txt_value: `gateway-verification=${token}` });

    // DNS has no such record (the .test domain does not exist): a clear refusal naming the record.
    const dns = await cli("domain", "verify", workspace.id, domain);
    expect(dns.code).toBe(1);
    expect(dns.stderr).toContain(`_gateway-verification.${domain}`);
    const verified = json(await cli("domain", "verify", workspace.id, domain.toUpperCase(), "--operator", "--json"));
    expect(verified).toMatchObject({ domain, verified: true, verified_by: "operator" });

    // A TXT lookup that finds the record verifies by DNS (the resolver is the one seam of dns-txt.ts).
    const viaDns = await verifyDomain(workspace.id, `other-${domain}`, { resolver: async (name) => (name === `_gateway-verification.other-${domain}` ? ["v=spf1 -all", shown.domains.find((x: { domain: string }) => x.domain === `other-${domain}`).txt_value] : []) });
    expect(viaDns).toMatchObject({ verified: true, verified_by: "dns" });

    // Another workspace cannot verify a domain this one holds.
    const { workspace: other } = await newWorkspace();
    json(await cli("sso", "set", other.id, "--oidc-issuer", oidc.issuer, "--client-id", oidc.clientId, "--client-secret", oidc.clientSecret, "--domain", domain, "--json"));
    const taken = await cli("domain", "verify", other.id, domain, "--operator");
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("already verified by another workspace");

    const removed = json(await cli("sso", "remove", workspace.id, "--json"));
    expect(removed).toEqual({ object: "sso_connection.deleted", id, deleted: true });
    expect(await db.ssoDomain.count({ where: { connectionId: id } })).toBe(0);
    expect(json(await cli("sso", "show", workspace.id, "--json"))).toEqual({ connection: null, domains: [], urls: null });
    // Its domain is free again.
    expect(json(await cli("domain", "verify", other.id, domain, "--operator", "--json"))).toMatchObject({ verified: true });

    const events = await db.auditEvent.findMany({ where: { workspaceId: workspace.id, action: { startsWith: "sso" } }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.action).sort()).toEqual(["sso.remove", "sso.set", "sso_domain.add", "sso_domain.add", "sso_domain.verify", "sso_domain.verify"]);
    const setEvent = events.find((e) => e.action === "sso.set")!;
    expect(setEvent.actorType).toBe("cli");
    expect(setEvent.changes).toMatchObject({ kind: { from: null, to: "oidc" }, client_secret: { from: null, to: "[secret]" }, default_role: { from: null, to: "billing" } });
    expect(JSON.stringify(events)).not.toContain(oidc.clientSecret);
  });

  it("sso set (SAML) reads the metadata file; --require refuses password sign-in and sign-up for the verified domain; --no-require is the way back", async () => {
    const { workspace } = await newWorkspace();
    const domain = `saml-${tag()}.test`;
    const user = await newUser();
    await db.user.update({ where: { id: user.id }, data: { email: `pat@${domain}` } });
    const file = path.join(dir, `idp-${tag()}.xml`);
    writeFileSync(file, saml.metadata);
    const set = json(await cli("sso", "set", workspace.id, "--saml-metadata", file, "--domain", domain, "--default-role", "viewer", "--require", "--idp-initiated", "--json"));
    expect(set.connection).toMatchObject({ kind: "saml", issuer: saml.entityId, saml_sso_url: saml.ssoUrl, default_role: "viewer", require_sso: true, allow_idp_initiated: true });
    // Not yet verified: passwords still work.
    expect(await authorizeWithPassword(`pat@${domain}`, user.password, "10.9.8.7")).toMatchObject({ id: user.id });
    json(await cli("domain", "verify", workspace.id, domain, "--operator", "--json"));
    await expect.poll(() => authorizeWithPassword(`pat@${domain}`, user.password, "10.9.8.7").then(() => "signed in", (e: Error) => e.message)).toMatch(/single sign-on/);
    await expect(signUp({ name: "New", email: `new@${domain}`, password: "a long enough password" })).rejects.toMatchObject({ status: 403, code: "sso_required" });

    json(await cli("sso", "set", workspace.id, "--saml-metadata", file, "--domain", domain, "--no-require", "--json"));
    await expect.poll(() => authorizeWithPassword(`pat@${domain}`, user.password, "10.9.8.7").then((u) => u?.id ?? null, (e: Error) => e.message)).toBe(user.id);
  });

  it("refuses what cannot work, saying why: no provider, an unreachable issuer, unreadable or wrong metadata, an owner default role", async () => {
    const { workspace } = await newWorkspace();
    const usage = await cli("sso", "set", workspace.id, "--domain", "a.test");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--oidc-issuer");
    const noDomain = await cli("sso", "set", workspace.id, "--oidc-issuer", oidc.issuer, "--client-id", "x", "--client-secret", "y");
    expect(noDomain.code).toBe(2);
    expect(noDomain.stderr).toContain("--domain");
    const missing = await cli("sso", "set", workspace.id, "--saml-metadata", path.join(dir, "nope.xml"), "--domain", "a.test");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read");

    const unreachable = await cli("sso", "set", workspace.id, "--oidc-issuer", "http://127.0.0.1:9/", "--client-id", "x", "--client-secret", "y", "--domain", "a.test");
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain("could not be read");
    const privateIssuer = await cli("sso", "set", workspace.id, "--oidc-issuer", "https://10.1.2.3/", "--client-id", "x", "--client-secret", "y", "--domain", "a.test");
    expect(privateIssuer.code).toBe(1);
    expect(privateIssuer.stderr).toContain("not allowed");
    const junk = path.join(dir, "junk.xml");
    writeFileSync(junk, "<html>not metadata</html>");
    const bad = await cli("sso", "set", workspace.id, "--saml-metadata", junk, "--domain", "a.test");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("SAML metadata cannot be used");
    const owner = await cli("sso", "set", workspace.id, "--oidc-issuer", oidc.issuer, "--client-id", "x", "--client-secret", "y", "--domain", "a.test", "--default-role", "owner");
    expect(owner.code).toBe(1);
    expect(owner.stderr).toContain("owner");
    const badDomain = await cli("sso", "set", workspace.id, "--oidc-issuer", oidc.issuer, "--client-id", "x", "--client-secret", "y", "--domain", "not a domain");
    expect(badDomain.code).toBe(1);
    expect(badDomain.stderr).toContain("domain");
    expect(await db.ssoConnection.count({ where: { workspaceId: workspace.id } })).toBe(0);
    const noConnection = await cli("domain", "verify", workspace.id, "a.test", "--operator");
    expect(noConnection.code).toBe(1);
  });

  it("the sso router is for owners only; an owner sets, reads and removes the connection and its domains", async () => {
    const { workspace, members } = await teamWorkspace("1", ["owner", "admin"]);
    await expect(members.admin!.caller.sso.get({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(members.admin!.caller.sso.set({ kind: "oidc", issuer: oidc.issuer, client_id: "x", client_secret: "y" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const owner = members.owner!.caller;
    expect(await owner.sso.get({ origin: "https://dash.example" })).toEqual({ connection: null, domains: [], urls: null });
    const domain = `trpc-${tag()}.test`;
    const set = await owner.sso.set({ kind: "oidc", issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret, domains: [domain] });
    expect(set.connection).toMatchObject({ kind: "oidc", client_secret_set: true });
    // Changing a flag keeps the stored secret.
    await owner.sso.set({ kind: "oidc", issuer: oidc.issuer, client_id: oidc.clientId, require_sso: true });
    const got = await owner.sso.get({ origin: "https://dash.example/settings" });
    expect(got.connection).toMatchObject({ require_sso: true, client_secret_set: true });
    expect(got.urls?.oidc_redirect_uri).toBe(`https://dash.example/api/sso/oidc/callback/${set.connection!.id}`);
    await owner.sso.addDomain({ domain: `second-${domain}` });
    await expect(owner.sso.addDomain({ domain: `second-${domain}` })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(owner.sso.verifyDomain({ domain: `second-${domain}` })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await owner.sso.removeDomain({ domain: `second-${domain}` });
    expect((await owner.sso.get({})).domains.map((d) => d.domain)).toEqual([domain]);
    await owner.sso.remove();
    expect((await owner.sso.get({})).connection).toBeNull();
    await expect(owner.sso.remove()).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(workspace.id).toBeTruthy();
  });
});
