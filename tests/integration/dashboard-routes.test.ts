// The routes procedures: every member lists the workspace's routes and what they did lately;
// owners and admins set and remove them (audited); another workspace's routes are not seen.
import { describe, expect, it } from "vitest";
import { teamWorkspace } from "../helpers-dashboard";

const def = (name: string) => ({ name, strategy: "fallback", targets: [{ model: "local-chat-sim" }] });

describe("routes procedures", () => {
  it("owners and admins set and remove routes; members and billing see them and cannot change them", async () => {
    const { members } = await teamWorkspace();
    const set = await members.admin!.caller.routes.set({ definition: def("team-chat") });
    expect(set).toMatchObject({ name: "team-chat", scope: "workspace", definition: { strategy: "fallback" } });
    for (const role of ["member", "billing"] as const) {
      expect((await members[role]!.caller.routes.list()).map((r) => r.name)).toContain("team-chat");
      await expect(members[role]!.caller.routes.set({ definition: def("mine") })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(members[role]!.caller.routes.remove({ name: "team-chat" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    await expect(members.owner!.caller.routes.set({ definition: { ...def("bad"), conditions: [{ when: "nope ==", use: "local-chat-sim" }] } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await members.owner!.caller.routes.activity()).toEqual({ shares: [], failures: [] });
    await members.owner!.caller.routes.remove({ name: "team-chat" });
    expect((await members.owner!.caller.routes.list()).map((r) => r.name)).not.toContain("team-chat");
  });

  it("a route of another workspace is neither listed nor removable", async () => {
    const a = await teamWorkspace("10", ["owner"]);
    const b = await teamWorkspace("10", ["owner"]);
    await a.members.owner!.caller.routes.set({ definition: def("private-route") });
    expect((await b.members.owner!.caller.routes.list()).map((r) => r.name)).not.toContain("private-route");
    await expect(b.members.owner!.caller.routes.remove({ name: "private-route" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
