// x402 revenue for operators: the CLI (`x402 revenue`, `x402 payments`, `x402 demo-wallet`) run as a
// real process against the test database, and the dashboard's `x402.overview` procedure. Payments
// are written through the ledger's own statement, as a settlement writes them, under model ids
// only this file uses (the database is shared: assertions look at these rows only).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { X402_WORKSPACE_ID } from "../../server/kernel/x402-workspace";
import { applyMovements, type Movement } from "../../server/ledger/movements";
import { cli, cliCommand } from "../cli-process";
import { newUser, teamWorkspace, userCaller } from "../helpers-dashboard";
import { settlementMovements } from "../../server/admission/x402/settlement";

const tag = Math.random().toString(36).slice(2, 8);
const MODEL_A = `test-x402-rev-a-${tag}`;
const MODEL_B = `test-x402-rev-b-${tag}`;
const MODEL_OLD = `test-x402-rev-old-${tag}`;
const PAYER_1 = `0x${"1".repeat(34)}${tag.padEnd(6, "0")}`;
const PAYER_2 = `0x${"2".repeat(34)}${tag.padEnd(6, "0")}`;
const TX = `0x${"ab".repeat(32)}`;
const today = new Date().toISOString().slice(0, 10);
let paymentId = "";
let failedPaymentId = "";
const tmpDirs: string[] = [];

/** A settled x402 call, written as recordSettlement writes it: the payment credited, the call charged. */
function settled(cost: string, modelId: string, payer: string): Movement[] {
  const usage = { eventId: newId("req"), modelId: modelId, nodeId: null, endpoint: "/v1/chat/completions", inputTokens: 3 };
  return settlementMovements({ payer: payer, scheme: "upto" }, cost, TX, usage);
}

beforeAll(async () => {
  await db.$executeRaw`INSERT INTO "Workspace" ("id", "name", "balance", "updatedAt") VALUES (${X402_WORKSPACE_ID}, 'x402 payments', 0, now()) ON CONFLICT ("id") DO NOTHING`;
  await applyMovements(db, [...settled("0.000123", MODEL_A, PAYER_1), ...settled("0.000877", MODEL_A, PAYER_2), ...settled("0.000000000000000001", MODEL_B, PAYER_1)]);
  // A payment older than 30 days: outside the default window, inside a 90-day one.
  const old = settled("2.5", MODEL_OLD, PAYER_1);
  await applyMovements(db, old);
  await db.usageEvent.update({ where: { id: old[1]!.usage!.eventId }, data: { createdAt: new Date(Date.now() - 40 * 86_400_000) } });

  paymentId = newId("x402pay");
  failedPaymentId = newId("x402pay");
  await db.x402Payment.create({
    data: {
      id: paymentId,
      network: "eip155:31337",
      asset: "0x0000000000000000000000000000000000000a5e",
      scheme: "upto",
      payer: PAYER_1,
      nonce: `nonce-${tag}-1`,
      // Beyond what a double holds: must come back digit for digit.
      maxAmount: "123456789012345678901234567890",
      settledAmount: "877",
      status: "settled",
      endpoint: "/v1/chat/completions",
      modelId: MODEL_A,
      txHash: TX,
      payload: {},
      requirements: {},
      settledAt: new Date(),
    },
  });
  await db.x402Payment.create({
    data: {
      id: failedPaymentId,
      network: "eip155:31337",
      asset: "0x0000000000000000000000000000000000000a5e",
      scheme: "exact",
      payer: PAYER_2,
      nonce: `nonce-${tag}-2`,
      maxAmount: "1000",
      status: "failed",
      endpoint: "/v1/embeddings",
      modelId: MODEL_B,
      errorReason: "insufficient_funds",
      payload: {},
      requirements: {},
    },
  });
});

afterAll(() => {
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs a command with --json, expects exit 0 and exactly one line of JSON, and parses it. */
async function json(...args: string[]) {
  const r = await cli(...args, "--json");
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  return JSON.parse(r.stdout);
}

/** The CLI with its own environment (DATA_DIR, DATABASE_URL). */
function cliWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [...cliCommand(), ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run cli: x402", () => {
  it("x402 revenue --json sums this file's payments per day and per model, exactly, within --days", async () => {
    const overview = await json("x402", "revenue");
    expect(overview).not.toHaveProperty("payments");
    expect(overview).toMatchObject({ days: 30, enabled: expect.any(Boolean), total: expect.any(String), calls: expect.any(Number), payers: expect.any(Number) });
    expect(overview.rows).toContainEqual({ day: today, model: MODEL_A, calls: 2, revenue: "0.001" });
    expect(overview.rows).toContainEqual({ day: today, model: MODEL_B, calls: 1, revenue: "0.000000000000000001" });
    expect(overview.byModel).toContainEqual({ model: MODEL_A, calls: 2, revenue: "0.001" });
    expect(overview.byModel).toContainEqual({ model: MODEL_B, calls: 1, revenue: "0.000000000000000001" });
    expect(overview.byDay.map((d: { day: string }) => d.day)).toContain(today);
    expect(overview.payers).toBeGreaterThanOrEqual(2);
    // 40 days ago: not in the last 30 days, but in the last 90.
    expect(overview.rows.some((r: { model: string }) => r.model === MODEL_OLD)).toBe(false);
    const wide = await json("x402", "revenue", "--days", "90");
    expect(wide.days).toBe(90);
    expect(wide.byModel).toContainEqual({ model: MODEL_OLD, calls: 1, revenue: "2.5" });

    const text = await cli("x402", "revenue");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`${today}\\s+\\d+\\s+\\d`));
    expect(text.stdout).toMatch(new RegExp(`${MODEL_A}\\s+2\\s+0\\.001\\n`));
    expect(text.stdout).toMatch(/Total: \S+ USD/);
  }, 90_000);

  it("x402 payments --json lists the latest payments with exact atomic amounts", async () => {
    const { payments } = await json("x402", "payments", "--limit", "1000");
    expect(payments).toContainEqual({
      id: paymentId,
      createdAt: expect.any(String),
      payer: PAYER_1,
      scheme: "upto",
      endpoint: "/v1/chat/completions",
      model: MODEL_A,
      status: "settled",
      maxAmount: "123456789012345678901234567890",
      settledAmount: "877",
      txHash: TX,
      errorReason: null,
    });
    expect(payments).toContainEqual(expect.objectContaining({ id: failedPaymentId, status: "failed", scheme: "exact", maxAmount: "1000", settledAmount: null, txHash: null, errorReason: "insufficient_funds" }));
    // Newest first.
    const times = payments.map((p: { createdAt: string }) => p.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    const one = await json("x402", "payments", "--limit", "1");
    expect(one.payments).toHaveLength(1);
    const text = await cli("x402", "payments", "--limit", "1000");
    expect(text.stdout).toMatch(new RegExp(`${paymentId}\\s.*${PAYER_1}\\s+upto\\s+/v1/chat/completions\\s+${MODEL_A}\\s+settled\\s+123456789012345678901234567890\\s+877\\s+${TX}`));
  }, 90_000);

  it("bad --days and --limit are usage errors", async () => {
    for (const args of [["revenue", "--days", "0"], ["revenue", "--days", "367"], ["revenue", "--days", "x"], ["payments", "--limit", "0"], ["payments", "--nope"]]) {
      const r = await cli("x402", ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("usage:");
    }
  }, 90_000);

  it("x402 demo-wallet prints the local chain's demo payer without touching the database, or says how to get one", async () => {
    // A database that cannot be reached: the command must not need one.
    const noDb = "postgresql://nobody:nothing@127.0.0.1:1/none";
    const empty = mkdtempSync(path.join(tmpdir(), "x402-wallet-none-"));
    tmpDirs.push(empty);
    const none = await cliWith({ DATA_DIR: empty, DATABASE_URL: noDb }, "x402", "demo-wallet", "--json");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("X402_NETWORK=local npm start");

    const dir = mkdtempSync(path.join(tmpdir(), "x402-wallet-"));
    tmpDirs.push(dir);
    const wallet = {
      network: "eip155:31337",
      chainId: 31337,
      rpcUrl: "http://127.0.0.1:8545",
      asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      payerPrivateKey: `0x${"59".repeat(32)}`,
      payer: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    };
    writeFileSync(path.join(dir, "x402-local.json"), JSON.stringify(wallet, null, 2));
    const r = await cliWith({ DATA_DIR: dir, DATABASE_URL: noDb }, "x402", "demo-wallet", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(wallet)}\n`);
    const text = await cliWith({ DATA_DIR: dir, DATABASE_URL: noDb }, "x402", "demo-wallet");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(wallet.payer);
    expect(text.stdout).toContain(wallet.payerPrivateKey);
  }, 90_000);
});

describe("x402.overview (operators only)", () => {
  it("is refused to a member who is not an operator", async () => {
    const { members } = await teamWorkspace("1", ["owner"]);
    await expect(members.owner!.caller.x402.overview({ days: 30 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const outsider = await newUser();
    await expect((await userCaller(outsider.id)).x402.overview({})).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("answers an operator with the revenue and the latest payments", async () => {
    const op = await newUser({ operator: true });
    const caller = await userCaller(op.id);
    const overview = await caller.x402.overview({});
    expect(overview.days).toBe(30);
    expect(overview.rows).toContainEqual({ day: today, model: MODEL_A, calls: 2, revenue: "0.001" });
    expect(overview.byModel).toContainEqual({ model: MODEL_A, calls: 2, revenue: "0.001" });
    expect(overview.payments.length).toBeLessThanOrEqual(50);
    const wide = await caller.x402.overview({ days: 90 });
    expect(wide.byModel).toContainEqual({ model: MODEL_OLD, calls: 1, revenue: "2.5" });
    await expect(caller.x402.overview({ days: 0 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.x402.overview({ days: 367 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
