// The request log: every /v1 call as a row, served or refused, streamed or not, with its tags
// (header and metadata), durations, tokens and cost; written in batches behind the answers; kept
// in day partitions dropped past retention; what a killed process left in its spool committed
// once by the next; listed newest first by the CLI with filters.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { replaySpool } from "../../server/infra/spool/replay";
import { Spool } from "../../server/infra/spool/spool";
import type { RequestLogRow } from "../../server/request-log/log-row";
import { commitLogRows, LOG_SPOOL_PREFIX } from "../../server/request-log/log-writer";
import { listLogs, type LogEntry } from "../../server/request-log/list-logs";
import { maintainPartitions } from "../../server/request-log/partitions";
import { usageCsv } from "../../server/ledger/usage/usage-csv";
import { usageSummary } from "../../server/ledger/usage/usage-summary";
import { cli } from "../cli-process";
import { newWorkspace, raw, until } from "../helpers";

const MODEL = "local-chat-sim";
const DAY = 86_400_000;

/** The workspace's log once it holds `n` rows (the writer flushes every LOG_FLUSH_MS). */
async function logsOf(workspaceId: string, n: number, filter: Parameters<typeof listLogs>[1] = {}): Promise<LogEntry[]> {
  const { value } = await until(() => listLogs(workspaceId, filter), (r) => r.logs.length >= n, 10_000);
  return value.logs;
}

const json = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  raw("/v1/chat/completions", { method: "POST", key, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

function row(id: string, workspaceId: string, createdAt: Date): RequestLogRow {
  return {
    id, createdAt: createdAt.toISOString(), workspaceId, method: "POST", route: "/v1/chat/completions", model: MODEL, nodeId: null,
    credential: "api_key", apiKeyId: null, planId: null, subject: null, payer: null, status: 200, errorCode: null, durationMs: 12,
    upstreamMs: 10, firstByteMs: 11, inputTokens: 3, outputTokens: 4, cost: "0.000001", usageEstimated: false, cache: null, tags: null,
    clientIp: null, userAgent: "test",
  };
}

describe("the request log", () => {
  it("logs a served call with its tags (header over metadata), node, tokens, cost, durations and caller; its usage event carries the tags", async () => {
    const { openai, workspace, key } = await newWorkspace("1");
    const { data, response } = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: "hi" }], metadata: { team: "search", feature: "autocomplete" } }, { headers: { "x-gateway-tags": "team=ads, customer=acme", "x-gateway-client-ip": "203.0.113.9" } })
      .withResponse();
    const requestId = response.headers.get("x-request-id")!;
    const [entry] = await logsOf(workspace.id, 1);
    expect(entry).toMatchObject({
      request_id: requestId,
      method: "POST",
      route: "/v1/chat/completions",
      model: MODEL,
      status: 200,
      error_code: null,
      credential: { kind: "api_key", key_id: key.id, plan_id: null, subject: null, payer: null },
      input_tokens: data.usage!.prompt_tokens,
      output_tokens: data.usage!.completion_tokens,
      tags: { team: "ads", feature: "autocomplete", customer: "acme" },
    });
    expect(entry!.node_id).toBeTruthy();
    expect(entry!.duration_ms).toBeGreaterThan(0);
    expect(entry!.upstream_ms).toBeGreaterThan(0);
    expect(entry!.first_byte_ms).toBeGreaterThan(0);
    expect(entry!.user_agent).toMatch(/OpenAI/);
    // The connection's address, not one the client named.
    expect(entry!.client_ip).toMatch(/127\.0\.0\.1$/);
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: requestId } });
    expect(entry!.cost).toBe(event.cost.toString());
    expect(event.tags).toEqual({ team: "ads", feature: "autocomplete", customer: "acme" });
  });

  it("logs refused and failed calls with their error codes, and a stream with its first byte", async () => {
    const { workspace, secret } = await newWorkspace("1");
    expect((await json(secret, { model: "no-such-model", messages: [{ role: "user", content: "x" }] })).status).toBe(404);
    expect((await json(secret, { model: MODEL, messages: "not a list" })).status).toBe(400);
    expect((await json(secret, { model: MODEL, messages: [{ role: "user", content: "x" }] }, { "x-gateway-tags": "bad key=1" })).status).toBe(400);
    const stream = await json(secret, { model: MODEL, messages: [{ role: "user", content: "stream" }], stream: true });
    expect(stream.status).toBe(200);
    await stream.text();
    const { secret: broke, workspace: brokeWs } = await newWorkspace("0");
    expect((await json(broke, { model: MODEL, messages: [{ role: "user", content: "x" }] })).status).toBe(402);

    const logs = await logsOf(workspace.id, 4);
    expect(logs.map((l) => [l.status, l.error_code])).toEqual([
      [200, null],
      [400, "invalid_tags"],
      [400, "invalid_value"],
      [404, "model_not_found"],
    ]);
    expect(logs[0]!.first_byte_ms).toBeGreaterThan(0);
    expect(logs[0]!.output_tokens).toBeGreaterThan(0);
    expect((await logsOf(brokeWs.id, 1))[0]).toMatchObject({ status: 402, error_code: "insufficient_quota", cost: null });
    // Filters: by status class and error code.
    expect((await listLogs(workspace.id, { status: "4xx" })).logs).toHaveLength(3);
    expect((await listLogs(workspace.id, { code: "model_not_found" })).logs.map((l) => l.status)).toEqual([404]);
  });

  it("usage is filtered and grouped by a tag key (cost per team), and the CSV carries the tags", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const call = (tags?: string) => openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }] }, tags ? { headers: { "x-gateway-tags": tags } } : {});
    await call("team=ads,feature=a");
    await call("team=ads,feature=b");
    await call("team=search");
    await call();
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    const costOf = (team: string | null) =>
      events.filter((e) => ((e.tags as Record<string, string> | null)?.team ?? null) === team).reduce((sum, e) => sum + Number(e.cost) * 1e12, 0);
    const summary = await usageSummary(workspace.id, {}, "team");
    expect(summary.tagGroups!.map((g) => [g.value, g.requests])).toEqual(
      expect.arrayContaining([
        ["ads", 2],
        ["search", 1],
        [null, 1],
      ]),
    );
    for (const g of summary.tagGroups!) expect(Number(g.cost) * 1e12).toBeCloseTo(costOf(g.value), 0);
    const ads = await usageSummary(workspace.id, { tag: "team=ads" });
    expect(ads.totals.requests).toBe(2);
    expect((await usageSummary(workspace.id, { tag: "feature" })).totals.requests).toBe(2);
    const { csv } = await usageCsv(workspace.id, { tag: "team=search" });
    const lines = csv.split("\r\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.endsWith(",team=search,false,0")).toBe(true);
  });

  it("pages newest first by keyset; another workspace's rows never show", async () => {
    const { openai, workspace } = await newWorkspace("1");
    for (let i = 0; i < 5; i++) await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: `n${i}` }] });
    const all = await logsOf(workspace.id, 5);
    const first = await listLogs(workspace.id, { limit: 2 });
    const second = await listLogs(workspace.id, { limit: 2, cursor: first.next_cursor! });
    const third = await listLogs(workspace.id, { limit: 2, cursor: second.next_cursor! });
    expect([...first.logs, ...second.logs, ...third.logs].map((l) => l.request_id)).toEqual(all.map((l) => l.request_id));
    expect(third.next_cursor).toBeNull();
    const other = await newWorkspace("1");
    expect((await listLogs(other.workspace.id, {})).logs).toEqual([]);
  });

  it("the CLI lists the log newest first, filtered by status, code and tag, as JSON", async () => {
    const { openai, workspace, secret } = await newWorkspace("1");
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }] }, { headers: { "x-gateway-tags": "team=cli" } });
    await json(secret, { model: "no-such-model", messages: [{ role: "user", content: "x" }] });
    await logsOf(workspace.id, 2);
    const all = await cli("logs", workspace.id, "--json");
    expect(all.code).toBe(0);
    const parsed = JSON.parse(all.stdout) as { logs: { status: number; error_code: string | null; tags: Record<string, string>; request_id: string; created_at: string; cost: string | null }[] };
    expect(parsed.logs.map((l) => l.status)).toEqual([404, 200]);
    expect(Object.keys(parsed.logs[0]!).sort()).toEqual(["cache", "cost", "created_at", "credential", "duration_ms", "error_code", "method", "model", "request_id", "route", "status", "tags", "upstream_ms"].sort());
    const refused = JSON.parse((await cli("logs", workspace.id, "--status", "4xx", "--json")).stdout) as typeof parsed;
    expect(refused.logs.map((l) => l.error_code)).toEqual(["model_not_found"]);
    const tagged = JSON.parse((await cli("logs", workspace.id, "--tag", "team=cli", "--json")).stdout) as typeof parsed;
    expect(tagged.logs.map((l) => l.tags)).toEqual([{ team: "cli" }]);
    expect((await cli("logs", workspace.id, "--status", "6xx")).code).toBe(2);
  }, 90_000); // five CLI processes, each starting in seconds on a loaded machine

  it("keeps one partition per day and drops whole days past retention", async () => {
    const { workspace } = await newWorkspace("1");
    const now = Date.now();
    const old = new Date(now - 40 * DAY);
    // The partitions around a day 40 days ago, and a row in it.
    await maintainPartitions(old.getTime(), 30);
    await commitLogRows([row("req_old_row", workspace.id, old)]);
    const partition = `RequestLog_${old.toISOString().slice(0, 10).replaceAll("-", "")}`;
    const placed = await db.$queryRawUnsafe<{ table: string }[]>(`SELECT tableoid::regclass::text AS table FROM "RequestLog" WHERE "id" = 'req_old_row'`);
    expect(placed[0]!.table).toBe(`"${partition}"`);
    const dropped = await maintainPartitions(now, 30);
    expect(dropped).toContain(partition);
    expect(await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM "RequestLog" WHERE "id" = 'req_old_row'`)).toEqual([]);
    // Today's and the coming days' partitions exist.
    const names = (await db.$queryRawUnsafe<{ name: string }[]>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'RequestLog'`)).map((r) => r.name);
    for (let d = 0; d <= 7; d++) expect(names).toContain(`RequestLog_${new Date(now + d * DAY).toISOString().slice(0, 10).replaceAll("-", "")}`);
  });

  it("what a killed process left in its spool is committed by the next one, once", async () => {
    const { workspace } = await newWorkspace("1");
    const dir = mkdtempSync(path.join(tmpdir(), "log-spool-"));
    // A process that is not running wrote two rows and died before writing them to the database.
    const dead = new Spool<RequestLogRow>(dir, LOG_SPOOL_PREFIX, JSON.stringify, { pid: 2 ** 22 + 17, startTime: "1" });
    dead.append(row("req_spooled_1", workspace.id, new Date()));
    dead.append(row("req_spooled_2", workspace.id, new Date()));
    expect(await replaySpool<RequestLogRow>(dir, LOG_SPOOL_PREFIX, commitLogRows)).toBe(2);
    expect(await replaySpool<RequestLogRow>(dir, LOG_SPOOL_PREFIX, commitLogRows)).toBe(0);
    // Committing the same rows again (a replay after a partial write) adds nothing.
    expect(await commitLogRows([row("req_spooled_1", workspace.id, new Date((await listLogs(workspace.id, {})).logs.at(-1)!.created_at))])).toBe(0);
    expect((await listLogs(workspace.id, {})).logs.map((l) => l.request_id).sort()).toEqual(["req_spooled_1", "req_spooled_2"]);
  });
});
