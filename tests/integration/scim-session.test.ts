// SCIM deactivation ends the person's open dashboard sessions at once: a member provisioned by
// SCIM signs in (next-auth's credentials endpoint, as the browser does), their cookie works, and
// the next request after the IdP sets `active:false` is refused, with no wait and no sign-out.
import { inject, describe, expect, it } from "vitest";
import { hashPassword } from "../../server/identity/users/password";
import { db } from "../../server/infra/db/client";
import { signIn } from "../instances";
import { scimWorkspace } from "../scim/scim-fixtures";

const baseUrl = () => inject("baseUrl");

async function trpcQuery(cookie: string, path: string, workspaceId?: string) {
  const res = await fetch(`${baseUrl()}/api/trpc/${path}`, { headers: { cookie, ...(workspaceId ? { "x-workspace-id": workspaceId } : {}) } });
  return { status: res.status, body: (await res.json()) as { result?: { data: unknown }; error?: { json?: { data?: { code?: string } } } } };
}

describe("SCIM deactivation and dashboard sessions", () => {
  it("a provisioned member's session works until the IdP deactivates them, then is refused at once", async () => {
    const { client, domain, workspace } = await scimWorkspace();
    const email = `session-${Math.random().toString(36).slice(2, 8)}@${domain}`;
    const made = await client.createUser(email);
    expect(made.status).toBe(201);
    const password = "a long enough password for the test";
    await db.user.update({ where: { email }, data: { passwordHash: await hashPassword(password) } });
    const cookie = await signIn(baseUrl(), email, password);

    const before = await trpcQuery(cookie, "workspaces.current", workspace.id);
    expect(before.status).toBe(200);
    expect(before.body.result?.data).toMatchObject({ id: workspace.id });
    expect((await trpcQuery(cookie, "account.me")).status).toBe(200);
    const page = await fetch(`${baseUrl()}/w/${workspace.id}/usage`, { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    await page.body?.cancel();

    expect((await client.entraSetActive(made.body.id as string, false)).body).toMatchObject({ active: false });

    // The same cookie, the very next request: signed out everywhere (the session version moved on).
    expect((await trpcQuery(cookie, "workspaces.current", workspace.id)).status).toBe(401);
    expect((await trpcQuery(cookie, "account.me")).status).toBe(401);
    const after = await fetch(`${baseUrl()}/w/${workspace.id}/usage`, { headers: { cookie }, redirect: "manual" });
    expect([307, 303, 302]).toContain(after.status);
    expect(after.headers.get("location")).toContain("/signin");
    await after.body?.cancel();

    // Reactivated, a new sign-in works again; the old cookie stays dead.
    expect((await client.oktaSetActive(made.body.id as string, true)).body).toMatchObject({ active: true });
    expect((await trpcQuery(cookie, "account.me")).status).toBe(401);
    const again = await signIn(baseUrl(), email, password);
    expect((await trpcQuery(again, "workspaces.current", workspace.id)).status).toBe(200);
  });
});
