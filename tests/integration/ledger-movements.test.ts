// The one ledger (server/ledger/movements.ts): every balance change is a movement, written once
// per id, and moves the balance, the key's `spent` and the lease by exactly what was inserted.
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, listen } from "../../server/infra/db/notify";
import { addCredits } from "../../server/ledger/add-credits";
import { applyMovements, usageMovement, type Movement } from "../../server/ledger/movements";
import { releaseVideoJobs, settleVideoJobs } from "../../server/ledger/video-money";
import { formatMoney, money } from "../../server/kernel/money";
import { randomBase62 } from "../../server/kernel/ids";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { balanceOf, expectLedgerInvariant } from "./ledger-fixtures";

function usage(workspaceId: string, apiKeyId: string | null, cost: string, eventId = `req_${randomBase62(16)}`): Movement {
  return usageMovement({ workspaceId, apiKeyId }, cost, { eventId, modelId: "ledger-test-model", nodeId: null, endpoint: "/v1/chat/completions", inputTokens: 12, outputTokens: 30 });
}

describe("ledger movements", () => {
  it("the balance is the sum of the workspace's movements, a key's spent the sum of its usage: after usage, credits and video jobs", async () => {
    const { workspace, apiKey } = await createWorkspace({ name: "ledger invariant", credits: "5", withKey: true });
    const keyId = apiKey!.key.id;
    const costs = ["0.000000000000000001", "0.1", "0.333333333333333333", "0.000123456789", "1.5"];
    await applyMovements(db, costs.map((c, i) => usage(workspace.id, i % 2 ? keyId : null, c)));
    await addCredits({ workspaceId: workspace.id, amount: "2.25", note: "top-up" });
    const job = { id: `video-${randomBase62(12)}`, workspaceId: workspace.id, apiKeyId: keyId };
    await applyMovements(db, [{ ...job, id: `video_reserve:${job.id}`, kind: "video_reserve", amount: "-1.2" }]);
    await settleVideoJobs(async () => [
      { ...job, reservedAmount: "1.2", modelId: "ledger-video", nodeId: null, cost: "0.8", billedSeconds: "4", createdAt: new Date(), planId: null, subject: null },
    ]);
    await expectLedgerInvariant(workspace.id);
    const spent = money("0.1").plus("0.000123456789").plus("0.8");
    expect(formatMoney((await db.apiKey.findUniqueOrThrow({ where: { id: keyId } })).spent)).toBe(formatMoney(spent));
    const charged = costs.reduce((sum, c) => sum.plus(c), money(0)).plus("0.8");
    expect(await balanceOf(workspace.id)).toBe(formatMoney(money("7.25").minus(charged)));
    const video = await db.usageEvent.findUniqueOrThrow({ where: { id: job.id } });
    expect({ cost: formatMoney(video.cost), seconds: formatMoney(video.videoSeconds), endpoint: video.endpoint }).toEqual({ cost: "0.8", seconds: "4", endpoint: "/v1/videos" });
  });

  it("a repeated id changes nothing, whether in one batch, in a later one or in concurrent ones", async () => {
    const { workspace, apiKey } = await createWorkspace({ name: "ledger idempotency", credits: "1", withKey: true });
    const once = usage(workspace.id, apiKey!.key.id, "0.25");
    const first = await applyMovements(db, [once, once, usage(workspace.id, null, "0.05")]);
    expect(first.inserted.size).toBe(2);
    expect(await balanceOf(workspace.id)).toBe("0.7");
    const again = await applyMovements(db, [once]);
    expect(again.inserted.size).toBe(0);
    expect(again.balances.size).toBe(0);
    const racing = usage(workspace.id, apiKey!.key.id, "0.1");
    const results = await Promise.all(Array.from({ length: 20 }, () => applyMovements(db, [racing])));
    expect(results.filter((r) => r.inserted.size === 1)).toHaveLength(1);
    expect(await balanceOf(workspace.id)).toBe("0.6");
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(3);
    await expectLedgerInvariant(workspace.id);
  });

  it("a video reservation is given back at most once: a release after the settle (or a second release) changes nothing", async () => {
    const { workspace } = await createWorkspace({ name: "ledger video", credits: "3" });
    const job = { id: `video-${randomBase62(12)}`, workspaceId: workspace.id, apiKeyId: null };
    await applyMovements(db, [{ ...job, id: `video_reserve:${job.id}`, kind: "video_reserve", amount: "-2" }]);
    await applyMovements(db, [{ ...job, id: `video_reserve:${job.id}`, kind: "video_reserve", amount: "-2" }]);
    expect(await balanceOf(workspace.id)).toBe("1");
    const ended = { ...job, reservedAmount: "2" };
    await releaseVideoJobs(async () => [ended]);
    expect(await balanceOf(workspace.id)).toBe("3");
    await releaseVideoJobs(async () => [ended]);
    await settleVideoJobs(async () => [{ ...ended, modelId: "m", nodeId: null, cost: "1", billedSeconds: "2", createdAt: new Date(), planId: null, subject: null }]);
    // The settle's reservation return was refused (same id); only its usage charge went in.
    const kinds = await db.balanceMovement.findMany({ where: { workspaceId: workspace.id }, select: { kind: true, amount: true }, orderBy: { createdAt: "asc" } });
    expect(kinds.map((k) => `${k.kind} ${formatMoney(k.amount)}`).sort()).toEqual(["credit 3", "usage -1", "video_release 2", "video_reserve -2"]);
    await expectLedgerInvariant(workspace.id);
  });

  it("credits go through the ledger: one movement, its ledger entry, and a NOTIFY for the other instances", async () => {
    const { workspace } = await createWorkspace({ name: "ledger credits" });
    const heard: string[] = [];
    await listen(Channel.balanceChanged, (payload) => heard.push(payload));
    const after = await addCredits({ workspaceId: workspace.id, amount: "0.000000000000000001", note: "smallest" });
    expect(after.balance).toBe("0.000000000000000001");
    const [movement] = await db.balanceMovement.findMany({ where: { workspaceId: workspace.id } });
    const [entry] = await db.creditLedgerEntry.findMany({ where: { workspaceId: workspace.id } });
    expect(movement).toMatchObject({ id: `credit:${entry!.id}`, kind: "credit" });
    expect(entry).toMatchObject({ note: "smallest", kind: "credit" });
    const started = Date.now();
    while (!heard.includes(workspace.id) && Date.now() - started < 1000) await new Promise((r) => setTimeout(r, 10));
    expect(heard).toContain(workspace.id);
    await expectLedgerInvariant(workspace.id);
  });

  it("a movement of the wrong sign is refused before any SQL", async () => {
    const { workspace } = await createWorkspace({ name: "ledger signs", credits: "1" });
    await expect(applyMovements(db, [usage(workspace.id, null, "-0.5")])).rejects.toThrow(/usage movement/);
    expect(await balanceOf(workspace.id)).toBe("1");
  });
});
