// `npm start` on its embedded defaults: first start seeds and prints the demo key once, a second
// start on the same data dir is refused, SIGTERM stops every process, a restart reuses the data.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/infra/net/free-port";
import { projectRoot } from "../../server/infra/paths";
import { pidExists as alive } from "../../server/infra/db/process-identity";

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-start-"));
chmodSync(scratch, 0o755);
const dataDir = path.join(scratch, "data");
const running: ChildProcess[] = [];

type Started = { proc: ChildProcess; output: () => string; exited: Promise<number | null> };

function start(port: number): Started {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), NEXT_DIST_DIR: ".next-test" };
  delete env.DATABASE_URL; // the embedded default
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], { cwd: projectRoot, env });
  running.push(proc);
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
  return { proc, output: () => out, exited };
}

async function ready(s: Started, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!s.output().includes("Gateway ready")) {
    if (s.proc.exitCode !== null) throw new Error(`start exited early:\n${s.output()}`);
    if (Date.now() > deadline) throw new Error(`start not ready:\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


afterAll(async () => {
  // A start still running (a failed test) is asked to stop everything it started; only a start
  // that does not stop in time is killed outright.
  const left = running.filter((p) => p.exitCode === null && p.signalCode === null);
  for (const p of left) p.kill("SIGTERM");
  const exited = Promise.all(left.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once("exit", r)))));
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

describe("npm start", () => {
  it("starts on embedded defaults, refuses a second start, stops everything on SIGTERM, and restarts on the same data", async () => {
    rmSync(dataDir, { recursive: true, force: true });
    const port = await freePort();
    const first = start(port);
    await ready(first);
    const key = first.output().match(/sk-gw-[0-9A-Za-z]{40}/)?.[0];
    expect(key, first.output()).toBeDefined();
    expect(first.output().match(/sk-gw-[0-9A-Za-z]{40}/g)).toHaveLength(1); // printed once
    const models = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    // The built-in node's seven models: chat, embeddings, moderation, speech, transcription, images, video.
    expect((await models.json()).data.length).toBe(7);

    // a second start on the same data dir: a clear error, and the first keeps serving
    const second = start(await freePort());
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toMatch(/already in use by npm start \(pid \d+/);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    // SIGTERM stops the gateway, the built-in node and PostgreSQL
    const postmaster = Number(readFileSync(path.join(dataDir, "pg/postmaster.pid"), "utf8").split("\n")[0]);
    const localNodeUrl = first.output().match(/local-node listening on (http:\/\/[\d.:]+)/)![1];
    expect(alive(postmaster)).toBe(true);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(alive(postmaster)).toBe(false);
    expect(existsSync(path.join(dataDir, "pg/postmaster.pid"))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    await expect(fetch(`${localNodeUrl}/health`)).rejects.toThrow();

    // a restart reuses the data: no new demo key, the old one still works
    const third = start(port);
    await ready(third);
    expect(third.output()).not.toMatch(/sk-gw-/);
    const again = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    third.proc.kill("SIGINT");
    expect(await third.exited).toBe(0);
  }, 180_000);

  it("a gateway server killed with -9 is started again on the same port", async () => {
    const port = await freePort();
    const first = start(port);
    await ready(first);
    const runtime = () => JSON.parse(readFileSync(path.join(dataDir, "runtime.json"), "utf8")) as { children: { pid: number }[] };
    const isServer = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("gateway-server");
    const server = runtime().children.find((c) => isServer(c.pid))!.pid;
    process.kill(server, "SIGKILL");
    const deadline = Date.now() + 60_000;
    while (!first.output().includes("The gateway server is back") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(first.output()).toMatch(/The gateway server exited \(SIGKILL\); starting it again/);
    expect(first.output()).toContain("The gateway server is back");
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    const again = runtime().children.find((c) => alive(c.pid) && isServer(c.pid));
    expect(again?.pid).not.toBe(server);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);
  }, 180_000);

  it("after a kill -9, the next start stops what the dead one left running and takes over", async () => {
    const port = await freePort();
    const first = start(port);
    await ready(first);
    const runtime = JSON.parse(readFileSync(path.join(dataDir, "runtime.json"), "utf8")) as { children: { pid: number }[] };
    expect(runtime.children.length).toBe(2); // the built-in node and the gateway
    first.proc.kill("SIGKILL");
    await first.exited;
    // its gateway still holds the port...
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    // ...until the next start on the same data dir stops it and serves on the same port
    const next = start(port);
    await ready(next);
    for (const child of runtime.children) expect(alive(child.pid)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    next.proc.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  }, 180_000);
});
