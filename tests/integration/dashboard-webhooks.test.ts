// The webhooks procedures: owners and admins only; the secret is answered by create and
// rotateSecret alone; another workspace's webhook is not found.
import { describe, expect, it } from "vitest";
import { teamWorkspace } from "../helpers-dashboard";

describe("webhooks procedures", () => {
  it("owners and admins manage webhooks; members and billing may not even list them", async () => {
    const { members } = await teamWorkspace();
    const created = await members.admin!.caller.webhooks.create({ url: "https://alerts.example.com/a", events: ["node.down"] });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = await members.owner!.caller.webhooks.list();
    expect(listed).toEqual([expect.objectContaining({ id: created.id, events: ["node.down"] })]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    for (const role of ["member", "billing"] as const) {
      await expect(members[role]!.caller.webhooks.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(members[role]!.caller.webhooks.create({ url: "https://alerts.example.com/b", events: ["node.up"] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    const rotated = await members.owner!.caller.webhooks.rotateSecret({ id: created.id });
    expect(rotated.secret).not.toBe(created.secret);
    const updated = await members.owner!.caller.webhooks.update({ id: created.id, events: ["node.down", "balance.low"], balance_below: "3" });
    expect(updated).toMatchObject({ events: ["balance.low", "node.down"], balance_below: "3" });
    await expect(members.owner!.caller.webhooks.update({ id: created.id, balance_below: null })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await members.owner!.caller.webhooks.deliveries({ webhookId: created.id })).toEqual([]);
  });

  it("a webhook of another workspace is not found, never changed", async () => {
    const a = await teamWorkspace("10", ["owner"]);
    const b = await teamWorkspace("10", ["owner"]);
    const hook = await a.members.owner!.caller.webhooks.create({ url: "https://alerts.example.com/c", events: ["video.failed"] });
    await expect(b.members.owner!.caller.webhooks.delete({ id: hook.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(b.members.owner!.caller.webhooks.deliveries({ webhookId: hook.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await a.members.owner!.caller.webhooks.list()).toHaveLength(1);
  });
});
