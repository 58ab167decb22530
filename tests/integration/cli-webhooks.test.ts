// npm run cli -- webhook add|list|remove, run as a real process against the test database.
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { open } from "../../server/infra/secret-box";
import { cli } from "../cli-process";
import { newWorkspace } from "../helpers";

describe("webhook commands", () => {
  it("webhook add --json prints the webhook with its id and signing secret (stored sealed); list and remove follow", async () => {
    const { workspace } = await newWorkspace();
    const add = await cli("webhook", "add", workspace.id, "--url", "https://alerts.example.com/hook", "--events", "balance.low,node.down", "--balance-below", "5", "--json");
    expect(add.code, add.stderr).toBe(0);
    const hook = JSON.parse(add.stdout);
    expect(hook).toMatchObject({ object: "webhook", url: "https://alerts.example.com/hook", events: ["balance.low", "node.down"], balance_below: "5", enabled: true });
    expect(hook.id).toMatch(/^wh_/);
    expect(hook.secret).toMatch(/^whsec_/);
    const row = await db.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(row.workspaceId).toBe(workspace.id);
    expect(row.secretEncrypted).not.toContain(hook.secret);
    expect(open(row.secretEncrypted)).toBe(hook.secret);

    const list = await cli("webhook", "list", workspace.id, "--json");
    expect(list.code, list.stderr).toBe(0);
    const { webhooks } = JSON.parse(list.stdout);
    expect(webhooks).toEqual([expect.objectContaining({ id: hook.id })]);
    expect(JSON.stringify(webhooks)).not.toContain(hook.secret);

    const removed = await cli("webhook", "remove", workspace.id, hook.id, "--json");
    expect(removed.code, removed.stderr).toBe(0);
    expect(await db.webhook.findUnique({ where: { id: hook.id } })).toBeNull();
  });

  it("refuses balance.low without --balance-below and a private URL, before or without creating anything", async () => {
    const { workspace } = await newWorkspace();
    const noThreshold = await cli("webhook", "add", workspace.id, "--url", "https://alerts.example.com/hook", "--events", "balance.low");
    expect(noThreshold.code).toBe(2);
    expect(noThreshold.stderr).toContain("--balance-below");
    const privateUrl = await cli("webhook", "add", workspace.id, "--url", "http://10.1.2.3/hook", "--events", "node.down");
    expect(privateUrl.code).toBe(1);
    expect(privateUrl.stderr).toContain("not allowed");
    expect(await db.webhook.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });
});
