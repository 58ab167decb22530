// Claude Code (the `claude` CLI, a dev dependency) run as a real process against the gateway,
// offline: its own home folder, no telemetry or update checks, no retries, and no tools that
// write or run anything. Killed after a time limit.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export type ClaudeCodeRun = { code: number | null; stdout: string; stderr: string; result: Record<string, unknown> | null };

export function runClaudeCode(opts: { baseUrl: string; key: string; model: string; prompt: string; cwd: string; timeoutMs?: number }): Promise<ClaudeCodeRun> {
  const home = mkdtempSync(path.join(tmpdir(), "claude-home-"));
  const bin = path.resolve("node_modules/.bin/claude");
  return new Promise((resolve) => {
    const proc = spawn(bin, ["-p", opts.prompt, "--model", opts.model, "--output-format", "json", "--disallowedTools", "Bash", "Edit", "Write"], {
      cwd: opts.cwd,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: opts.baseUrl,
        ANTHROPIC_AUTH_TOKEN: opts.key,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_MAX_RETRIES: "0",
        // Its quick side calls (titles, summaries) go to the same model: the gateway knows no other.
        ANTHROPIC_SMALL_FAST_MODEL: opts.model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: opts.model,
        NODE_ENV: "production",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 90_000);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      let result: Record<string, unknown> | null = null;
      try {
        result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;
      } catch {
        // not JSON: the caller shows stdout and stderr
      }
      resolve({ code, stdout, stderr, result });
    });
  });
}
