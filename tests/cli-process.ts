// The admin CLI run as a real process against the test database (DATABASE_URL).
import { spawn } from "node:child_process";
import { inject } from "vitest";

export function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["--import", "tsx", "scripts/cli.ts", ...args], {
      env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
