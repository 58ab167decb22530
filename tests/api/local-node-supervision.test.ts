// `npm start` supervises the built-in node: killed, it is started again (after 0.5 s, then
// doubling), the gateway keeps serving the other nodes meanwhile, and once the node is back
// calls are routed to it again. Run on a database of its own, so the routing of other test files
// is not disturbed by a second built-in node or by its absence.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb } from "../../server/infra/db/client";
import { pidExists as alive } from "../../server/infra/db/process-identity";
import { freePort } from "../../server/infra/net/free-port";
import { projectRoot } from "../../server/infra/paths";
import { newId } from "../../server/kernel/ids";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { chatModelCard } from "../fakes/chat-model-card";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { until } from "../helpers";

const OTHER = "test-supervision-chat";
const LOCAL = "local-chat-sim";

const scratch = mkdtempSync(path.join(tmpdir(), "gateway-supervision-"));
chmodSync(scratch, 0o755);
const databaseName = `gateway_supervision_${Math.random().toString(36).slice(2, 10)}`;
let databaseUrl: string;
let start: ChildProcess | undefined;
let output = "";
let other: FakeUpstream | undefined;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(inject("databaseUrl"));
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin((c) => c.query(`CREATE DATABASE ${databaseName}`));
  const url = new URL(inject("databaseUrl"));
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
});

afterAll(async () => {
  if (start && start.exitCode === null && start.signalCode === null) {
    start.kill("SIGTERM");
    await Promise.race([new Promise((r) => start!.once("exit", r)), new Promise((r) => setTimeout(r, 20_000))]);
    if (start.exitCode === null && start.signalCode === null) start.kill("SIGKILL");
  }
  await other?.close();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
  rmSync(scratch, { recursive: true, force: true });
});

const localNodePid = () => (JSON.parse(readFileSync(path.join(scratch, "data", "runtime.json"), "utf8")) as { children: { pid: number }[] }).children[0]!.pid;

describe("the built-in node under npm start", () => {
  it("is restarted with backoff when it dies, while the gateway serves other nodes, and is routed to again once back", async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: path.join(scratch, "data"),
      PORT: String(port),
      NEXT_DIST_DIR: process.env.TEST_DIST_DIR ?? ".next-test",
      WEB_CONCURRENCY: "1",
      VIDEO_WORKERS: "0",
    };
    delete env.GATEWAY_SECRET; // its own, generated into its data dir
    start = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], { cwd: projectRoot, env });
    start.stdout!.on("data", (d) => (output += d));
    start.stderr!.on("data", (d) => (output += d));
    // The demo key is printed a line after "Gateway ready", possibly in a later chunk: wait for both.
    await until(async () => output, (o) => (o.includes("Gateway ready") && /sk-gw-[0-9A-Za-z]{40}/.test(o)) || start!.exitCode !== null, 90_000);
    expect(output).toContain("Gateway ready");
    const key = output.match(/sk-gw-[0-9A-Za-z]{40}/)![0];
    const gateway = `http://127.0.0.1:${port}`;

    // The other node, registered in this stack's database.
    other = await startFakeUpstream(OTHER); // answers every chat completion at once
    const otherUrl = other.url;
    const scratchDb = createDb(databaseUrl);
    try {
      await scratchDb.model.create({ data: cardToRow(chatModelCard(OTHER)) });
      await scratchDb.node.create({ data: { id: newId("node"), name: "other", baseUrl: otherUrl, city: "Lyon", country: "FR", models: { create: [{ modelId: OTHER, upstreamModel: OTHER }] } } });
      await scratchDb.$executeRaw`SELECT pg_notify('gateway_catalog_changed', ''), pg_notify('gateway_nodes_changed', '')`;
    } finally {
      await scratchDb.$disconnect();
    }
    const call = async (model: string) => {
      const res = await fetch(`${gateway}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
      });
      await res.body?.cancel();
      return res.status;
    };
    expect((await until(() => call(OTHER), (s) => s === 200, 15_000)).value).toBe(200);
    expect(await call(LOCAL)).toBe(200);

    // Killed: the gateway stays up and keeps serving the other node...
    const first = localNodePid();
    process.kill(first, "SIGKILL");
    await until(async () => alive(first), (a) => !a, 5000);
    for (let i = 0; i < 5; i++) expect(await call(OTHER)).toBe(200);
    expect((await fetch(`${gateway}/health`)).status).toBe(200);
    // ...and the node comes back (0.5 s later) and serves again.
    const back = await until(() => call(LOCAL), (s) => s === 200, 20_000);
    expect(back.value, output).toBe(200);
    expect(output).toMatch(/The built-in node exited \(SIGKILL\); starting it again in 500 ms/);
    const second = localNodePid();
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);

    // Dying again soon after, it waits twice as long.
    process.kill(second, "SIGKILL");
    await until(async () => output, (o) => /starting it again in 1000 ms/.test(o), 5000);
    expect(output).toMatch(/starting it again in 1000 ms/);
    expect((await until(() => call(LOCAL), (s) => s === 200, 20_000)).value).toBe(200);
    expect(await call(OTHER)).toBe(200);

    // SIGTERM still stops everything, the restarted node included.
    const third = localNodePid();
    start.kill("SIGTERM");
    expect(await new Promise((r) => start!.once("exit", r))).toBe(0);
    expect(alive(third)).toBe(false);
    await expect(fetch(`${gateway}/health`)).rejects.toThrow();
  }, 180_000);
});
