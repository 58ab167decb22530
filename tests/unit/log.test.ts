// The gateway's log as a process writes it: JSON lines for machines (and secrets redacted
// whatever a caller passes), readable lines for people, nothing below LOG_LEVEL, and JSON lines
// written in blocks that reach stdout within half a second, and at exit.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
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

  it("buffers JSON lines: a quiet process's lines come out within half a second, and what is buffered at exit is written", async () => {
    // Three lines, a pause (the buffer is far from full), a fourth line, and an immediate exit.
    const script = `
import { logFor } from "./server/infra/telemetry/log.ts";
const log = logFor("probe");
for (const n of [1, 2, 3]) log.info({ n }, "early");
setTimeout(() => { log.info({ n: 4 }, "last"); process.exit(0); }, 1500);
`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: projectRoot,
      env: { ...process.env, LOG_FORMAT: "json", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const started = performance.now();
    const seen: { n: number; atMs: number }[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      seen.push({ n: (JSON.parse(line) as { n: number }).n, atMs: performance.now() - started });
    }
    expect(seen.map((s) => s.n)).toEqual([1, 2, 3, 4]);
    // The early lines did not wait for the exit (1.5 s later) to be written.
    const early = seen.filter((s) => s.n < 4).map((s) => s.atMs);
    expect(Math.max(...early)).toBeLessThan(seen[3]!.atMs - 500);
  });
});
