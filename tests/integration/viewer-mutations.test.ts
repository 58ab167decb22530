// A viewer only reads: every mutation of every router, enumerated from the root router (the
// dashboard's own and the contract's /v1 operations), answers 403 to a viewer. New mutations are
// picked up by the enumeration, so none can slip past without a permission a viewer lacks.
import type { AnyProcedure } from "@trpc/server";
import { getTRPCErrorFromUnknown } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { describe, expect, it } from "vitest";
import { can } from "../../server/identity/workspaces/permissions";
import type { ProcMeta } from "../../server/trpc/init";
import { appRouter } from "../../server/trpc/root";
import { teamWorkspace } from "../helpers-dashboard";

const mutations = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>)
  .filter(([, p]) => p._def.type === "mutation")
  .map(([path, p]) => ({ path, meta: p._def.meta as ProcMeta | undefined }));

/** Mutations on the caller's own account, in no workspace: listed here so that a new one fails this test until it is looked at. */
const ACCOUNT = ["account.signUp", "account.claimSetup", "workspaces.create", "workspaces.acceptInvitation"].sort();

const statusOf = async (call: Promise<unknown>) =>
  call.then(
    () => null,
    (e: unknown) => getHTTPStatusCodeFromError(getTRPCErrorFromUnknown(e)),
  );

describe("the viewer role is read-only", () => {
  it("the account-level mutations are exactly the listed ones, and every other mutation names a permission a viewer lacks (or is the contract's or an operator's)", () => {
    expect(mutations.length).toBeGreaterThan(70);
    expect(mutations.filter((m) => m.meta?.scope === "account").map((m) => m.path).sort()).toEqual(ACCOUNT);
    const viewerMay = mutations.filter((m) => m.meta?.permission && can("viewer", m.meta.permission)).map((m) => m.path);
    expect(viewerMay).toEqual([]);
  });

  it("a viewer gets 403 on every mutation of every router", async () => {
    const { members } = await teamWorkspace("10", ["owner", "viewer"]);
    const seen: Array<[string, number | null]> = [];
    for (const { path } of mutations.filter((m) => !ACCOUNT.includes(m.path))) {
      // The permission check runs before the input is read, so `{}` reaches it for every procedure.
      const fn = path.split(".").reduce((o: any, k) => o[k], members.viewer!.caller) as (input: unknown) => Promise<unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
      seen.push([path, await statusOf(fn({}))]);
    }
    expect(seen.filter(([, status]) => status !== 403)).toEqual([]);
    expect(seen.length).toBe(mutations.length - ACCOUNT.length);
  });

  it("a viewer still reads the workspace: its summary, members, keys and models", async () => {
    const { workspace, members } = await teamWorkspace("10", ["owner", "viewer"]);
    const viewer = members.viewer!.caller;
    const current = await viewer.workspaces.current();
    expect(current).toMatchObject({ id: workspace.id, role: "viewer", customRole: null });
    expect(current.permissions).toEqual(["workspace.view"]);
    expect((await viewer.workspaces.members()).map((m) => m.role).sort()).toEqual(["owner", "viewer"]);
    expect(await viewer.keys.list()).toEqual([]);
    expect(await viewer.models.list({})).toMatchObject({ object: "list" });
  });
});
