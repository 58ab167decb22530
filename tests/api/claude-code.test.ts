// Claude Code's agent loop through the gateway, offline, on the built-in node: asked to read a
// file, the simulated model calls Claude Code's Read tool (though Claude Code sends its reminders
// after the request), Claude Code runs it and sends the result back, and the loop ends with an
// answer. Every turn is a /v1/messages call on the workspace's key, each logged and billed.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { listLogs } from "../../server/request-log/list-logs";
import { runClaudeCode } from "../claude-code";
import { baseUrl, newWorkspace, until } from "../helpers";

describe("Claude Code through the gateway", () => {
  it("completes a tool round trip on the built-in node: Read called, its result sent back, an answer at the end", async () => {
    const { workspace, secret } = await newWorkspace("5");
    const dir = mkdtempSync(path.join(tmpdir(), "claude-work-"));
    writeFileSync(path.join(dir, "notes.txt"), "The launch code is 7421.\n");
    const run = await runClaudeCode({ baseUrl: baseUrl(), key: secret, model: "local-chat-sim", prompt: "Read the file notes.txt", cwd: dir });
    const detail = `exit ${run.code}\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
    expect(run.code, detail).toBe(0);
    expect(run.result, detail).toMatchObject({ type: "result", is_error: false });
    expect(Number(run.result!.num_turns), detail).toBeGreaterThanOrEqual(2);
    // Every turn of the loop was a /v1/messages call on this workspace, answered and billed.
    const { value } = await until(() => listLogs(workspace.id, { limit: 50 }), (r) => r.logs.filter((l) => l.route === "/v1/messages").length >= 2, 10_000);
    const turns = value.logs.filter((l) => l.route === "/v1/messages");
    expect(turns.every((l) => l.status === 200), JSON.stringify(turns)).toBe(true);
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
