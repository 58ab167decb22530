// The other host of the dispatcher: plain `next start` on the test build and the test run's
// database, so that /v1 and /health are answered by the Next.js route handlers
// (app/v1/[[...path]]/route.ts, app/health/route.ts) instead of the node:http data plane that
// the test gateway (`npm start`'s server) runs. For the parity test between the two.
import { spawn } from "node:child_process";
import { inject } from "vitest";
import { nextBin } from "../scripts/lib/build";
import { stopChild, waitForHttp, type Child } from "../scripts/lib/processes";
import { freePort } from "../server/infra/net/free-port";
import { projectRoot } from "../server/infra/paths";

export type NextHost = {
  url: string;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process has exited. */
  stop: () => Promise<void>;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
};

/** Output kept for failure messages and checks (the start banner and any errors: small). */
const KEPT_CHARS = 1024 * 1024;

export async function startNextHost(): Promise<NextHost> {
  const port = await freePort();
  const proc = spawn(process.execPath, [nextBin(), "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NEXT_DIST_DIR: process.env.TEST_DIST_DIR ?? ".next-test",
      NODE_ENV: "production",
      DATABASE_URL: inject("databaseUrl"),
      DATA_DIR: process.env.DATA_DIR!,
      GATEWAY_SECRET: process.env.GATEWAY_SECRET!,
      // Video jobs are rendered by the test gateway's workers; this process only answers requests.
      VIDEO_WORKERS: "0",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const child: Child = { name: "next start", proc, exited: new Promise((resolve) => proc.once("exit", (code) => resolve(code))) };
  // Piped output must be read, or the child blocks once the pipe is full. GATEWAY_TEST_LOGS=1 shows it.
  let output = "";
  const show = process.env.GATEWAY_TEST_LOGS === "1";
  for (const stream of [proc.stdout, proc.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (text: string) => {
      if (show) for (const line of text.split("\n").filter(Boolean)) process.stdout.write(`[next start :${port}] ${line}\n`);
      output += text;
      if (output.length > KEPT_CHARS) output = output.slice(-KEPT_CHARS);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, child);
  } catch (err) {
    proc.kill("SIGKILL");
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  return { url, stop: () => stopChild(child), output: () => output };
}
