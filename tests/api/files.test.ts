// The files API through HTTP with the official SDK: upload, list (purpose, pages, order),
// retrieve, download (whole and by Range), delete; bad input named by its param; files no other
// workspace can reach; expiry; and, through the service with small injected limits, the size
// limit per purpose and the workspace quota, also under concurrent uploads.
import { readdir } from "node:fs/promises";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { describe, expect, it } from "vitest";
import { deleteExpiredFiles } from "../../server/files/expire-files";
import { storeFile } from "../../server/files/store-file";
import { findFile, readFileBytes } from "../../server/files/find-file";
import type { FileLimits } from "../../server/files/purposes";
import { db } from "../../server/infra/db/client";
import { blobStore } from "../../server/infra/storage/blob-store";
import { GatewayError } from "../../server/kernel/errors";
import { expectApiError, newWorkspace, raw } from "../helpers";

async function serviceError(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "the call should have failed").toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

const JSONL = '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}\n';

const upload = async (openai: OpenAI, text: string, purpose: OpenAI.FilePurpose = "user_data", name = "notes.txt") =>
  openai.files.create({ file: await toFile(Buffer.from(text), name), purpose });

/** A multipart form sent by hand, for what the SDK will not send. */
function form(fields: Record<string, string>, file?: { name: string; text: string }): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append("file", new Blob([file.text]), file.name);
  return f;
}

describe("a file, from upload to delete", () => {
  it("is stored, retrieved, downloaded whole and by Range, and deleted", async () => {
    const { workspace, secret, openai } = await newWorkspace("0");
    const text = "hello, files\n".repeat(100);
    const created = await upload(openai, text, "user_data", "greeting.txt");
    expect(created).toEqual({
      id: expect.stringMatching(/^file-[A-Za-z0-9]{24}$/),
      object: "file",
      bytes: text.length,
      created_at: expect.any(Number),
      filename: "greeting.txt",
      purpose: "user_data",
      status: "processed",
    });
    expect(Math.abs(created.created_at - Date.now() / 1000)).toBeLessThan(30);

    expect(await openai.files.retrieve(created.id)).toEqual(created);
    const whole = await openai.files.content(created.id);
    expect(whole.headers.get("content-type")).toBe("application/octet-stream");
    expect(Buffer.from(await whole.arrayBuffer()).toString()).toBe(text);

    // Range: the bytes asked for, as a 206 with Content-Range; a start past the end is a 416.
    const part = await raw(`/v1/files/${created.id}/content`, { key: secret, headers: { range: "bytes=7-11" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 7-11/${text.length}`);
    expect(part.headers.get("accept-ranges")).toBe("bytes");
    expect(await part.text()).toBe("files");
    const tail = await raw(`/v1/files/${created.id}/content`, { key: secret, headers: { range: "bytes=-6" } });
    expect(tail.status).toBe(206);
    expect(await tail.text()).toBe("files\n");
    const beyond = await raw(`/v1/files/${created.id}/content`, { key: secret, headers: { range: `bytes=${text.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${text.length}`);
    expect(((await beyond.json()) as { error: { code: string } }).error.code).toBe("range_not_satisfiable");

    // The bytes live in the blob store under the workspace.
    const row = await findFile(workspace.id, created.id);
    expect(row.blobKey).toBe(`files/${workspace.id}/${created.id}`);
    expect((await readFileBytes(row)).toString()).toBe(text);

    expect(await openai.files.delete(created.id)).toEqual({ id: created.id, object: "file", deleted: true });
    await expectApiError(openai.files.retrieve(created.id), 404, "file_id", "file_not_found");
    await expectApiError(openai.files.content(created.id), 404, "file_id", "file_not_found");
    await expectApiError(openai.files.delete(created.id), 404, "file_id", "file_not_found");
    expect(await blobStore().head(row.blobKey)).toBeNull();
    expect(await db.storedFile.count({ where: { id: created.id } })).toBe(0);
  });

  it("an unknown id is a 404 naming file_id", async () => {
    const { openai } = await newWorkspace("0");
    const err = await expectApiError(openai.files.retrieve("file-doesnotexist"), 404, "file_id", "file_not_found");
    expect(err.message).toContain("file-doesnotexist");
  });
});

describe("listing", () => {
  it("pages with limit and after, both orders, filtered by purpose", async () => {
    const { secret, openai } = await newWorkspace("0");
    const ids: string[] = [];
    for (const [i, purpose] of (["user_data", "batch", "user_data", "assistants"] as const).entries()) {
      ids.push((await upload(openai, purpose === "batch" ? JSONL : `file ${i}`, purpose, `f${i}.txt`)).id);
    }
    const newestFirst = [...ids].reverse();

    const all = await openai.files.list();
    expect(all.data.map((f) => f.id)).toEqual(newestFirst);
    expect(all.has_more).toBe(false);

    // Two pages of two, newest first: `after` is the last id of the page before.
    const first = await raw("/v1/files?limit=2", { key: secret });
    const page1 = (await first.json()) as { data: { id: string }[]; first_id: string; last_id: string; has_more: boolean; object: string };
    expect(page1).toMatchObject({ object: "list", first_id: newestFirst[0], last_id: newestFirst[1], has_more: true });
    const page2 = await openai.files.list({ limit: 2, after: page1.last_id });
    expect(page2.data.map((f) => f.id)).toEqual(newestFirst.slice(2));
    expect(page2.has_more).toBe(false);

    // The SDK's auto-pagination walks every page.
    const walked: string[] = [];
    for await (const f of openai.files.list({ limit: 1, order: "asc" })) walked.push(f.id);
    expect(walked).toEqual(ids);

    const userData = await openai.files.list({ purpose: "user_data" });
    expect(userData.data.map((f) => f.id)).toEqual([ids[2], ids[0]]);
    expect(userData.data.every((f) => f.purpose === "user_data")).toBe(true);
    expect((await openai.files.list({ purpose: "fine-tune" })).data).toEqual([]);

    await expectApiError(openai.files.list({ after: "file-unknown" }), 400, "after");
    await expectApiError(openai.files.list({ limit: 0 }), 400, "limit");
    await expectApiError(openai.files.list({ order: "sideways" as "asc" }), 400, "order");
  });
});

describe("bad uploads", () => {
  it("a purpose clients may not upload (or none) is a 400 naming purpose", async () => {
    const { openai } = await newWorkspace("0");
    for (const purpose of ["batch_output", "pictures", ""]) {
      const err = await expectApiError(upload(openai, "x", purpose as OpenAI.FilePurpose), 400, "purpose");
      expect(err.message).toContain("user_data");
    }
    expect((await openai.files.list()).data).toEqual([]);
  });

  it("a form without a file, or without a purpose, is a 400 naming it", async () => {
    const { secret } = await newWorkspace("0");
    const noFile = await raw("/v1/files", { method: "POST", key: secret, body: form({ purpose: "user_data" }) });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as { error: { param: string } }).error.param).toBe("file");
    const noPurpose = await raw("/v1/files", { method: "POST", key: secret, body: form({}, { name: "a.txt", text: "a" }) });
    expect(noPurpose.status).toBe(400);
    expect(((await noPurpose.json()) as { error: { param: string } }).error.param).toBe("purpose");
    const json = await raw("/v1/files", { method: "POST", key: secret, body: JSON.stringify({ purpose: "user_data" }), headers: { "content-type": "application/json" } });
    expect(json.status).toBe(400);
  });

  it("expires_after outside OpenAI's bounds (3600 s to 30 days), or half given, is a 400 naming the field", async () => {
    const { secret, openai } = await newWorkspace("0");
    const file = await toFile(Buffer.from("x"), "x.txt");
    await expectApiError(openai.files.create({ file, purpose: "user_data", expires_after: { anchor: "created_at", seconds: 60 } }), 400, "expires_after[seconds]");
    await expectApiError(
      openai.files.create({ file: await toFile(Buffer.from("x"), "x.txt"), purpose: "user_data", expires_after: { anchor: "created_at", seconds: 31 * 24 * 3600 } }),
      400,
      "expires_after[seconds]",
    );
    await expectApiError(
      openai.files.create({ file: await toFile(Buffer.from("x"), "x.txt"), purpose: "user_data", expires_after: { anchor: "last_active_at" as "created_at", seconds: 3600 } }),
      400,
      "expires_after[anchor]",
    );
    const half = await raw("/v1/files", { method: "POST", key: secret, body: form({ purpose: "user_data", "expires_after[seconds]": "3600" }, { name: "a.txt", text: "a" }) });
    expect(half.status).toBe(400);
    expect(((await half.json()) as { error: { param: string } }).error.param).toBe("expires_after[anchor]");
  });
});

describe("isolation between workspaces", () => {
  it("another workspace's key gets 404 on retrieve, content and delete, and does not list the file", async () => {
    const a = await newWorkspace("0", "files owner");
    const b = await newWorkspace("0", "files stranger");
    const mine = await upload(a.openai, "private bytes", "user_data", "secret.txt");
    await upload(b.openai, "b's own", "user_data", "b.txt");

    const err = await expectApiError(b.openai.files.retrieve(mine.id), 404, "file_id", "file_not_found");
    // The same answer as for an id that never existed: nothing tells a stranger the id is in use.
    const unknown = await expectApiError(b.openai.files.retrieve("file-000000000000000000000000"), 404, "file_id", "file_not_found");
    expect(err.message.replace(mine.id, "ID")).toBe(unknown.message.replace("file-000000000000000000000000", "ID"));
    await expectApiError(b.openai.files.content(mine.id), 404, "file_id", "file_not_found");
    const ranged = await raw(`/v1/files/${mine.id}/content`, { key: b.secret, headers: { range: "bytes=0-3" } });
    expect(ranged.status).toBe(404);
    await expectApiError(b.openai.files.delete(mine.id), 404, "file_id", "file_not_found");
    const listed = await b.openai.files.list();
    expect(listed.data.map((f) => f.id)).not.toContain(mine.id);
    expect(listed.data).toHaveLength(1);
    await expectApiError(b.openai.files.list({ after: mine.id }), 400, "after");

    // A's file is untouched by B's attempts.
    expect(Buffer.from(await (await a.openai.files.content(mine.id)).arrayBuffer()).toString()).toBe("private bytes");
    expect((await a.openai.files.list()).data.map((f) => f.id)).toEqual([mine.id]);
  });
});

describe("expiry", () => {
  it("expires_after sets expires_at; once past it the file answers 404, leaves the list, and the sweep deletes its bytes", async () => {
    const { workspace, openai } = await newWorkspace("0");
    const created = await openai.files.create({
      file: await toFile(Buffer.from("short-lived"), "short.txt"),
      purpose: "user_data",
      expires_after: { anchor: "created_at", seconds: 3600 },
    });
    expect(created.expires_at).toBe(created.created_at + 3600);
    expect((await openai.files.retrieve(created.id)).expires_at).toBe(created.expires_at);
    const kept = await upload(openai, "kept", "user_data", "kept.txt");
    expect(kept.expires_at).toBeUndefined();

    // OpenAI's shortest expiry is an hour: the hour is made to have passed.
    await db.storedFile.update({ where: { id: created.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectApiError(openai.files.retrieve(created.id), 404, "file_id", "file_not_found");
    await expectApiError(openai.files.content(created.id), 404, "file_id", "file_not_found");
    await expectApiError(openai.files.delete(created.id), 404, "file_id", "file_not_found");
    expect((await openai.files.list()).data.map((f) => f.id)).toEqual([kept.id]);

    const blobKey = `files/${workspace.id}/${created.id}`;
    expect(await blobStore().head(blobKey)).not.toBeNull();
    expect(await deleteExpiredFiles()).toBeGreaterThanOrEqual(1);
    expect(await blobStore().head(blobKey)).toBeNull();
    expect(await db.storedFile.count({ where: { id: created.id } })).toBe(0);
    expect((await openai.files.retrieve(kept.id)).id).toBe(kept.id);
  });

  it("a batch file expires after 30 days unless told otherwise, as OpenAI's do", async () => {
    const { openai } = await newWorkspace("0");
    const batch = await upload(openai, JSONL, "batch", "input.jsonl");
    expect(batch.expires_at).toBe(batch.created_at + 30 * 24 * 3600);
  });
});

describe("size limits and the workspace quota (the service, with small limits injected)", () => {
  const limits: FileLimits = { maxBytes: 100, byPurpose: { batch: 40 }, workspaceQuotaBytes: 250 };
  const owner = (workspaceId: string) => ({ workspaceId, apiKeyId: null });
  const blobsOf = async (workspaceId: string) => (await readdir(path.join(process.env.DATA_DIR!, "blobs", "files", workspaceId)).catch(() => [])).filter((n) => !n.endsWith(".tmp"));

  it("a file over its purpose's limit is a 413 file_too_large, and nothing is kept", async () => {
    const { workspace } = await newWorkspace("0");
    const err = await serviceError(storeFile(owner(workspace.id), { filename: "big.jsonl", purpose: "batch", data: Buffer.alloc(41) }, limits));
    expect(err).toMatchObject({ status: 413, code: "file_too_large", param: "file" });
    expect(err.message).toContain("batch");
    // The same size is fine for a purpose held to the general limit; one byte past that is not.
    await storeFile(owner(workspace.id), { filename: "ok.txt", purpose: "user_data", data: Buffer.alloc(41) }, limits);
    expect(await serviceError(storeFile(owner(workspace.id), { filename: "x", purpose: "vision", data: Buffer.alloc(101) }, limits))).toMatchObject({
      status: 413,
      code: "file_too_large",
    });
    expect(await db.storedFile.count({ where: { workspaceId: workspace.id } })).toBe(1);
    expect(await blobsOf(workspace.id)).toHaveLength(1);
  });

  it("the quota counts live files only; batch_output files (the gateway's) count too", async () => {
    const { workspace } = await newWorkspace("0");
    const first = await storeFile(owner(workspace.id), { filename: "a", purpose: "user_data", data: Buffer.alloc(100) }, limits);
    await storeFile(owner(workspace.id), { filename: "out.jsonl", purpose: "batch_output", data: Buffer.alloc(100) }, limits);
    const err = await serviceError(storeFile(owner(workspace.id), { filename: "c", purpose: "user_data", data: Buffer.alloc(51) }, limits));
    expect(err).toMatchObject({ status: 413, code: "storage_quota_exceeded", param: "file" });
    await storeFile(owner(workspace.id), { filename: "d", purpose: "user_data", data: Buffer.alloc(50) }, limits);
    // An expired file no longer counts.
    await db.storedFile.update({ where: { id: first.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await storeFile(owner(workspace.id), { filename: "e", purpose: "user_data", data: Buffer.alloc(100) }, limits);
  });

  it("concurrent uploads cannot together pass the quota", async () => {
    const { workspace } = await newWorkspace("0");
    // Ten uploads of 60 bytes at once against 250: exactly four fit.
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => storeFile(owner(workspace.id), { filename: `f${i}`, purpose: "user_data", data: Buffer.alloc(60) }, limits)),
    );
    const refused = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason as GatewayError);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    expect(refused.every((e) => e.code === "storage_quota_exceeded")).toBe(true);
    const { _sum } = await db.storedFile.aggregate({ where: { workspaceId: workspace.id }, _sum: { bytes: true } });
    expect(_sum.bytes).toBe(240);
    // A refused upload leaves no blob behind.
    expect(await blobsOf(workspace.id)).toHaveLength(4);
  });

  it("a file of the gateway's own (batch_output) is listed and downloadable like an upload", async () => {
    const { workspace, openai } = await newWorkspace("0");
    const out = await storeFile(owner(workspace.id), { filename: "batch_abc_output.jsonl", purpose: "batch_output", data: Buffer.from(JSONL), contentType: "application/jsonl" });
    expect((await openai.files.list({ purpose: "batch_output" })).data).toEqual([expect.objectContaining({ id: out.id, purpose: "batch_output", bytes: JSONL.length })]);
    expect(Buffer.from(await (await openai.files.content(out.id)).arrayBuffer()).toString()).toBe(JSONL);
    expect(await serviceError(findFile("ws_other", out.id, "input_file_id"))).toMatchObject({ status: 404, param: "input_file_id" });
  });
});
