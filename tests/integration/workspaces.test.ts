import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { addCredits } from "../../server/ledger/add-credits";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { getWorkspace } from "../../server/identity/workspaces/get-workspace";

describe("workspaces and credits", () => {
  it("creates a workspace with its credits in the ledger and the balance, as decimal strings", async () => {
    const { workspace, apiKey } = await createWorkspace({ name: "Ledger", credits: "10.5", withKey: true });
    expect(workspace.balance).toBe("10.5");
    expect(apiKey!.secret).toMatch(/^sk-gw-/);
    const ledger = await db.creditLedgerEntry.findMany({ where: { workspaceId: workspace.id } });
    expect(ledger.map((e) => e.amount.toString())).toEqual(["10.5"]);
    const stored = await db.apiKey.findUniqueOrThrow({ where: { id: apiKey!.key.id } });
    // only the hash and the visible prefix are stored
    expect(JSON.stringify(stored)).not.toContain(apiKey!.secret);
  });

  it("keeps 18 decimal places exactly", async () => {
    const { workspace } = await createWorkspace({ name: "Tiny", credits: "0.123456789012345678" });
    expect(workspace.balance).toBe("0.123456789012345678");
    const after = await addCredits({ workspaceId: workspace.id, amount: "0.000000000000000001" });
    expect(after.balance).toBe("0.123456789012345679");
  });

  it("concurrent credit additions lose nothing", async () => {
    const { workspace } = await createWorkspace({ name: "Concurrent" });
    await Promise.all(Array.from({ length: 50 }, () => addCredits({ workspaceId: workspace.id, amount: "0.1" })));
    const detail = await getWorkspace(workspace.id);
    expect(detail.workspace.balance).toBe("5");
    expect(detail.workspace.creditsTotal).toBe("5");
  });

  it("invalid input writes nothing", async () => {
    await expect(createWorkspace({ name: "", credits: "1" })).rejects.toThrow();
    await expect(createWorkspace({ name: "Bad credits", credits: "-1" })).rejects.toThrow();
    await expect(createWorkspace({ name: "Float", credits: "1e3" })).rejects.toThrow();
    await expect(createWorkspace({ name: "Too precise", credits: "0.0000000000000000001" })).rejects.toThrow();
    const names = ["Bad credits", "Float", "Too precise"];
    expect(await db.workspace.count({ where: { name: { in: names } } })).toBe(0);
  });

  it("an unknown workspace is not found", async () => {
    await expect(getWorkspace("ws_missing")).rejects.toMatchObject({ status: 404, code: "workspace_not_found" });
    await expect(addCredits({ workspaceId: "ws_missing", amount: "1" })).rejects.toMatchObject({ status: 404 });
  });
});
