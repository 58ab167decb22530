// The CLI's SCIM commands as an operator runs them: `scim token` prints a base URL and a token
// that works (and ends the older one), `scim group-role` maps a group to a built-in role, a
// custom role by name, or nothing; bad arguments are refused with a clear message.
import { describe, expect, it } from "vitest";
import { listAudit } from "../../server/audit/list-audit";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { cli } from "../cli-process";
import { ScimClient } from "../scim/scim-client";
import { scimWorkspace } from "../scim/scim-fixtures";

describe("CLI: scim token and scim group-role", () => {
  it("prints a base URL and a token that provisions; the next token revokes it; audited", async () => {
    const { workspace, domain, client: fixtureClient } = await scimWorkspace();
    const out = await cli("scim", "token", workspace.id, "--json");
    expect(out.code, out.stderr).toBe(0);
    const printed = JSON.parse(out.stdout) as { base_url: string; token: string; id: string; start: string };
    expect(printed.base_url).toMatch(/\/scim\/v2$/);
    expect(printed.token).toMatch(/^scim_[0-9A-Za-z]{40}$/);
    expect(printed.start).toBe(printed.token.slice(0, 9));
    const client = new ScimClient(fixtureClient.baseUrl, printed.token);
    expect((await client.createUser(`cli@${domain}`)).status).toBe(201);
    expect((await fixtureClient.request("GET", "/Users")).status).toBe(401);
    const again = await cli("scim", "token", workspace.id);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("/scim/v2");
    expect((await client.request("GET", "/Users")).status).toBe(401);
    const created = (await listAudit(workspace.id, { action: "scim_token.create", limit: 10 })).events;
    expect(created.filter((e) => e.actor.type === "cli")).toHaveLength(2);
    expect(JSON.stringify(created)).not.toContain(printed.token);
  });

  it("maps a group to a role, a custom role by name, or none; refuses owner, unknown groups and roles", async () => {
    const { workspace, domain, client } = await scimWorkspace({ defaultRole: "viewer" });
    const gil = (await client.createUser(`gil@${domain}`)).body.id as string;
    const group = await client.createGroup("Operators", [gil]);
    await db.customRole.create({ data: { id: newId("role"), workspaceId: workspace.id, name: "Spender", permissions: ["workspace.view", "models.call"] } });

    const admin = await cli("scim", "group-role", workspace.id, "Operators", "admin", "--json");
    expect(admin.code, admin.stderr).toBe(0);
    expect(JSON.parse(admin.stdout)).toMatchObject({ group: { id: group.body.id, role: "admin", custom_role: null, members: 1 } });
    expect((await db.membership.findUniqueOrThrow({ where: { id: gil } })).role).toBe("admin");

    const custom = await cli("scim", "group-role", workspace.id, group.body.id as string, "Spender");
    expect(custom.code, custom.stderr).toBe(0);
    expect(custom.stdout).toContain("Spender");
    expect(await db.membership.findUniqueOrThrow({ where: { id: gil } })).toMatchObject({ role: "viewer", customRoleId: expect.stringMatching(/^role_/) });

    expect((await cli("scim", "group-role", workspace.id, "Operators", "none")).code).toBe(0);
    expect(await db.membership.findUniqueOrThrow({ where: { id: gil } })).toMatchObject({ role: "viewer", customRoleId: null });
    const events = (await listAudit(workspace.id, { action: "scim_group.map", limit: 10 })).events;
    expect(events).toHaveLength(3);

    const owner = await cli("scim", "group-role", workspace.id, "Operators", "owner");
    expect(owner.code).toBe(2);
    expect(owner.stderr).toContain("owner");
    const noGroup = await cli("scim", "group-role", workspace.id, "Nobody", "admin");
    expect(noGroup.code).toBe(1);
    expect(noGroup.stderr).toContain("No SCIM group");
    const noRole = await cli("scim", "group-role", workspace.id, "Operators", "Astronaut");
    expect(noRole.code).toBe(1);
    expect(noRole.stderr).toContain("No custom role");
    const noWorkspace = await cli("scim", "token", "ws_missing");
    expect(noWorkspace.code).toBe(1);
    const missingArg = await cli("scim", "group-role", workspace.id);
    expect(missingArg.code).toBe(2);
  });
});
