// Capture of request and answer bodies in the request log: off by default; on for a workspace (or
// a key, either way); secrets and the workspace's patterns redacted; media kept as references; a
// stream kept as its assembled answer; each body cut at the workspace's cap; stored compressed from 1 KB;
// readable only by the workspace that owns it; dropped with its day's partition.
import { gzipSync } from "node:zlib";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { logBody } from "../../server/request-log/capture/body-store";
import { setCaptureSettings, setKeyCapture } from "../../server/request-log/capture/capture-settings";
import { listLogs, type LogEntry } from "../../server/request-log/list-logs";
import { maintainPartitions } from "../../server/request-log/partitions";
import { createKey } from "../../server/identity/keys/create-key";
import { cli } from "../cli-process";
import { baseUrl, client, newWorkspace, raw, until } from "../helpers";

const MODEL = "local-chat-sim";
const DAY = 86_400_000;

async function entryOf(workspaceId: string, requestId: string): Promise<LogEntry> {
  const { value } = await until(() => listLogs(workspaceId, {}), (r) => r.logs.some((l) => l.request_id === requestId), 10_000);
  const entry = value.logs.find((l) => l.request_id === requestId);
  expect(entry, `log row of ${requestId}`).toBeDefined();
  return entry!;
}

async function bodyOf(workspaceId: string, requestId: string) {
  const entry = await entryOf(workspaceId, requestId);
  const { value } = await until(() => logBody(workspaceId, requestId, new Date(entry.created_at)), (b) => b !== null, 5000);
  return { entry, body: value };
}

const parsed = (text: string | null | undefined) => JSON.parse(text ?? "null") as Record<string, unknown>;

describe("capture of request and answer bodies", () => {
  it("keeps nothing by default", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const { response } = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hello" }] }).withResponse();
    const id = response.headers.get("x-request-id")!;
    const entry = await entryOf(workspace.id, id);
    expect(entry.captured).toBe(false);
    expect(await logBody(workspace.id, id, new Date(entry.created_at))).toBeNull();
  });

  it("keeps a call's request and answer, secrets and the workspace's patterns redacted, media as references", async () => {
    const { openai, workspace } = await newWorkspace("1");
    await setCaptureSettings(workspace.id, { enabled: true, redact_patterns: ["acct-[0-9]{6}"] });
    const image = `data:image/png;base64,${Buffer.alloc(3000, 7).toString("base64")}`;
    const { data, response } = await openai.chat.completions
      .create({
        model: MODEL,
        messages: [
          { role: "system", content: "The user's key is sk-live0123456789abcdefghij and their token Bearer abcdefghijklmnopqrstuvwxyz012345." },
          { role: "user", content: [{ type: "text", text: "Account acct-123456 asks: what is in this picture?" }, { type: "image_url", image_url: { url: image } }] },
        ],
        metadata: { team: "search" },
      })
      .withResponse();
    const id = response.headers.get("x-request-id")!;
    const { entry, body } = await bodyOf(workspace.id, id);
    expect(entry.captured).toBe(true);
    const request = body!.request!;
    expect(request).not.toContain("sk-live0123456789abcdefghij");
    expect(request).not.toContain("abcdefghijklmnopqrstuvwxyz012345");
    expect(request).not.toContain("acct-123456");
    expect(request).not.toContain(Buffer.alloc(3000, 7).toString("base64").slice(0, 100));
    const req = parsed(request) as { model: string; messages: { content: unknown }[]; metadata: unknown };
    expect(req.model).toBe(MODEL);
    expect(req.metadata).toEqual({ team: "search" });
    expect(req.messages[0]!.content).toBe("The user's key is [redacted] and their token [redacted].");
    expect(req.messages[1]!.content).toEqual([
      { type: "text", text: "Account [redacted] asks: what is in this picture?" },
      { type: "image_url", image_url: { url: "[media image/png, 3000 bytes, not kept]" } },
    ]);
    // The answer as the client got it.
    expect(parsed(body!.response)).toEqual(JSON.parse(JSON.stringify(data)));
    expect(body!.truncated).toBe(false);
    expect(body!.response_bytes).toBe(Buffer.byteLength(body!.response!));
  });

  it("keeps a stream as its assembled answer, and an error answer as it went out", async () => {
    const { openai, workspace, secret } = await newWorkspace("1");
    await setCaptureSettings(workspace.id, { enabled: true });
    const { data: stream, response } = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: "tell me a story" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = "";
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    const { body } = await bodyOf(workspace.id, response.headers.get("x-request-id")!);
    const answer = parsed(body!.response) as { object: string; choices: { message: { role: string; content: string }; finish_reason: string }[]; usage: unknown };
    expect(answer.object).toBe("chat.completion");
    expect(answer.choices[0]!.message).toEqual({ role: "assistant", content: text });
    expect(answer.choices[0]!.finish_reason).toBe("stop");
    expect(answer.usage).toEqual(usage);
    expect(text.length).toBeGreaterThan(0);

    const refused = await raw("/v1/chat/completions", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }) });
    expect(refused.status).toBe(404);
    const { body: refusedBody } = await bodyOf(workspace.id, refused.headers.get("x-request-id")!);
    expect(parsed(refusedBody!.request)).toEqual({ model: "no-such-model", messages: [{ role: "user", content: "x" }] });
    expect((parsed(refusedBody!.response).error as { code: string }).code).toBe("model_not_found");
  });

  it("keeps a streamed response (responses API) and a streamed message (Anthropic's format) as the objects they assemble into", async () => {
    const { openai, workspace, secret } = await newWorkspace("1");
    await setCaptureSettings(workspace.id, { enabled: true });
    const { data: events, response } = await openai.responses.create({ model: MODEL, input: "stream a reply", stream: true }).withResponse();
    let completed: unknown = null;
    for await (const e of events) if (e.type === "response.completed") completed = e.response;
    const { body } = await bodyOf(workspace.id, response.headers.get("x-request-id")!);
    expect(parsed(body!.response)).toEqual(JSON.parse(JSON.stringify(completed)));

    const anthropic = new Anthropic({ apiKey: secret, baseURL: baseUrl(), maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "hello" }] });
    const message = await stream.finalMessage();
    const requestId = (await stream.withResponse()).response.headers.get("x-request-id")!;
    const { body: messageBody } = await bodyOf(workspace.id, requestId);
    const kept = parsed(messageBody!.response) as { type: string; role: string; content: unknown; stop_reason: string; usage: { output_tokens: number } };
    expect(kept).toMatchObject({ type: "message", role: "assistant", content: JSON.parse(JSON.stringify(message.content)), stop_reason: message.stop_reason! });
    expect(kept.usage.output_tokens).toBe(message.usage.output_tokens);
  });

  it("cuts each body at the workspace's cap, stores it compressed, and a binary answer as a reference", async () => {
    const { openai, workspace } = await newWorkspace("1");
    await setCaptureSettings(workspace.id, { enabled: true, max_bytes: 2048 });
    const long = "lorem ipsum dolor sit amet ".repeat(400);
    const { response } = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: long }] }).withResponse();
    const { entry, body } = await bodyOf(workspace.id, response.headers.get("x-request-id")!);
    expect(body!.truncated).toBe(true);
    expect(Buffer.byteLength(body!.request!)).toBeLessThanOrEqual(2048);
    expect(body!.request_bytes).toBeGreaterThan(long.length);
    const [stored] = await db.$queryRaw<{ packed: number }[]>`
      SELECT octet_length("request")::int AS packed FROM "RequestLogBody" WHERE "id" = ${entry.request_id}`;
    expect(stored!.packed).toBeLessThan(2048 / 4);

    const speech = await openai.audio.speech.create({ model: "local-tts", voice: "alloy", input: "hello there" }).withResponse();
    const audio = Buffer.from(await speech.data.arrayBuffer());
    const { body: speechBody } = await bodyOf(workspace.id, speech.response.headers.get("x-request-id")!);
    const ref = parsed(speechBody!.response);
    expect(ref.kept).toBe(false);
    expect(String(ref.media)).toMatch(/^audio\//);
    expect(speechBody!.response).not.toContain(audio.subarray(0, 64).toString("base64"));
  });

  it("keeps a body under 1 KB as it is, not compressed (gzip would cost more than it saves), and reads both kinds back", async () => {
    const { openai, workspace } = await newWorkspace("1");
    await setCaptureSettings(workspace.id, { enabled: true });
    const { response } = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "short and plain" }] }).withResponse();
    const { entry, body } = await bodyOf(workspace.id, response.headers.get("x-request-id")!);
    expect(parsed(body!.request).messages).toEqual([{ role: "user", content: "short and plain" }]);
    const [stored] = await db.$queryRaw<{ raw: Uint8Array }[]>`SELECT "request" AS raw FROM "RequestLogBody" WHERE "id" = ${entry.request_id}`;
    expect(Buffer.from(stored!.raw).toString()).toBe(body!.request);
    // A short body an earlier version stored compressed is read back the same.
    const zipped = gzipSync(Buffer.from(body!.request!));
    await db.$executeRaw`UPDATE "RequestLogBody" SET "request" = ${zipped} WHERE "id" = ${entry.request_id}`;
    expect((await logBody(workspace.id, entry.request_id, new Date(entry.created_at)))!.request).toBe(body!.request);
  });

  it("a key may turn capture on or off for its own calls, whatever the workspace says", async () => {
    const { workspace, secret: onKeySecret, key: onKey } = await newWorkspace("1");
    const off = await createKey(db, { workspaceId: workspace.id, name: "never" });
    await setKeyCapture(workspace.id, onKey.id, true); // the workspace keeps nothing; this key does
    await setKeyCapture(workspace.id, off.key.id, false);
    const first = await client(onKeySecret).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "one" }] }).withResponse();
    expect((await entryOf(workspace.id, first.response.headers.get("x-request-id")!)).captured).toBe(true);
    await setCaptureSettings(workspace.id, { enabled: true });
    const second = await client(off.secret).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "two" }] }).withResponse();
    expect((await entryOf(workspace.id, second.response.headers.get("x-request-id")!)).captured).toBe(false);
    // Both changes are in the audit log.
    const audit = await db.auditEvent.findMany({ where: { workspaceId: workspace.id, action: "capture.update" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.targetType, a.targetId])).toEqual([["key", onKey.id], ["key", off.key.id], ["workspace", workspace.id]]);
    expect(audit[2]!.changes).toEqual({ enabled: { from: false, to: true } });
  });

  it("never shows one workspace another's bodies", async () => {
    const a = await newWorkspace("1");
    const b = await newWorkspace("1");
    await setCaptureSettings(a.workspace.id, { enabled: true });
    const { response } = await a.openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "private" }] }).withResponse();
    const id = response.headers.get("x-request-id")!;
    const { entry } = await bodyOf(a.workspace.id, id);
    expect(await logBody(b.workspace.id, id, new Date(entry.created_at))).toBeNull();
  });

  it("refuses a pattern RE2 does not accept and a cap out of range; the CLI sets and shows the settings", async () => {
    const { workspace } = await newWorkspace("1");
    await expect(setCaptureSettings(workspace.id, { redact_patterns: ["ok", "(?<=x)y"] })).rejects.toMatchObject({ status: 400, param: "redact_patterns[1]" });
    await expect(setCaptureSettings(workspace.id, { max_bytes: 10 })).rejects.toMatchObject({ status: 400 });
    const set = await cli("capture", workspace.id, "--enable", "--max-bytes", "4096", "--redact", "acct-\\d+", "--redact", "ssn=\\S+", "--json");
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ enabled: true, max_bytes: 4096, redact_patterns: ["acct-\\d+", "ssn=\\S+"] });
    const bad = await cli("capture", workspace.id, "--redact", "(a", "--json");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("redact_patterns[0]");
    const audit = await db.auditEvent.findFirstOrThrow({ where: { workspaceId: workspace.id, action: "capture.update" } });
    expect(audit.actorType).toBe("cli");
  });

  it("drops the bodies of days past retention with the log's", async () => {
    const { workspace } = await newWorkspace("1");
    const now = Date.now();
    const old = new Date(now - 40 * DAY);
    await maintainPartitions(old.getTime(), 30);
    const at = old.toISOString();
    await db.$executeRaw`INSERT INTO "RequestLogBody" ("id", "createdAt", "workspaceId", "request") VALUES ('req_old_body', ${at}::timestamptz AT TIME ZONE 'UTC', ${workspace.id}, '\\x00'::bytea)`;
    const partition = `RequestLogBody_${at.slice(0, 10).replaceAll("-", "")}`;
    const placed = await db.$queryRawUnsafe<{ table: string }[]>(`SELECT tableoid::regclass::text AS table FROM "RequestLogBody" WHERE "id" = 'req_old_body'`);
    expect(placed[0]!.table).toBe(`"${partition}"`);
    expect(await maintainPartitions(now, 30)).toContain(partition);
    expect(await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM "RequestLogBody" WHERE "id" = 'req_old_body'`)).toEqual([]);
  });
});
