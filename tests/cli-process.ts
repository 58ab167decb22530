// The admin CLI run as a real process against the test database (DATABASE_URL): scripts/cli.ts
// as the test run bundled it (tests/setup/global.ts), or through the TypeScript loader as
// `npm run cli` runs it when there is no bundle.
import { spawn } from "node:child_process";
import { inject } from "vitest";

/** The node arguments that start the CLI. */
export function cliCommand(): string[] {
  const bundle = process.env.GATEWAY_TEST_CLI;
  return bundle ? [bundle] : ["--import", "tsx", "scripts/cli.ts"];
}

export function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [...cliCommand(), ...args], {
      env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
