// The gateway's log as a process writes it: JSON lines for machines (and secrets redacted
// whatever a caller passes), readable lines for people, and nothing below LOG_LEVEL.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../server/infra/paths";

const SCRIPT = `
import { logFor } from "./server/infra/telemetry/log.ts";
const log = logFor("probe");
log.debug("hidden at info");
log.info({ requestId: "req_1", authorization: "Bearer sk-gw-secret-1", headers: { cookie: "session=secret-2", "payment-signature": "secret-3", accept: "*/*" }, token: "secret-4" }, "probed");
log.error({ err: new Error("boom") }, "failed");
log.flush();
`;

function run(env: Record<string, string>): string {
  const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", SCRIPT], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stdout;
}

describe("log", () => {
  it("writes JSON lines with time, level, pid and component, and redacts credentials", () => {
    const lines = run({ LOG_FORMAT: "json", LOG_LEVEL: "info" })
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    const [probed, failed] = lines as [Record<string, unknown>, Record<string, unknown>];
    expect(probed).toMatchObject({ level: "info", component: "probe", msg: "probed", requestId: "req_1", authorization: "[redacted]", token: "[redacted]" });
    expect(probed.headers).toEqual({ cookie: "[redacted]", "payment-signature": "[redacted]", accept: "*/*" });
    expect(typeof probed.pid).toBe("number");
    expect(new Date(String(probed.time)).toISOString()).toBe(probed.time);
    expect(failed).toMatchObject({ level: "error", msg: "failed", err: { type: "Error", message: "boom" } });
    expect(JSON.stringify(lines)).not.toMatch(/secret-\d/);
  });

  it("writes readable lines for people, and honours LOG_LEVEL", () => {
    const text = run({ LOG_FORMAT: "pretty", LOG_LEVEL: "debug" });
    expect(text).toMatch(/DEBUG.*hidden at info/);
    expect(text).toMatch(/INFO.*probed/);
    expect(text).not.toMatch(/^\{/m);
    expect(text).not.toMatch(/secret-\d/);
    expect(run({ LOG_FORMAT: "json", LOG_LEVEL: "silent" })).toBe("");
  });
});
