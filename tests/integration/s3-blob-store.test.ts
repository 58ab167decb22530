// The S3 blob store against a real S3-compatible server (s3rver, in this process, over HTTP):
// the same contract as the filesystem store, plus ranges, streamed (multipart) uploads and sweeps.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BlobStore } from "../../server/infra/storage/blob-types";
import { FileBlobStore } from "../../server/infra/storage/fs-blob-store";
import { startS3Server, type S3Server } from "../fakes/s3-server";

const fsRoot = mkdtempSync(path.join(tmpdir(), "blobs-"));
let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server();
});

afterAll(async () => {
  await s3?.close();
  rmSync(fsRoot, { recursive: true, force: true });
});

const s3Store = (prefix = "") => s3.store(prefix);

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + 3) % 256));
const readAll = async (s: Readable | null) => (s ? buffer(s) : null);

// What every BlobStore must do, run against both implementations.
describe.each([
  ["filesystem", () => new FileBlobStore(fsRoot) as BlobStore],
  ["s3", () => s3Store("contract") as BlobStore],
])("blob store contract (%s)", (_name, make) => {
  it("round-trips bytes, reports size and streams ranges", async () => {
    const store = make();
    const data = bytes(1000);
    await store.put("images/c.png", data, "image/png");
    expect(await store.get("images/c.png")).toEqual({ data, contentType: "image/png" });
    expect(await store.head("images/c.png")).toEqual({ size: 1000, contentType: "image/png" });
    expect(await readAll(await store.stream("images/c.png", { start: 10, end: 19 }))).toEqual(data.subarray(10, 20));
    await store.delete("images/c.png");
    expect(await store.get("images/c.png")).toBeNull();
  });

  it("answers null for a missing key and refuses unsafe keys", async () => {
    const store = make();
    expect(await store.get("images/none.png")).toBeNull();
    expect(await store.head("images/none.png")).toBeNull();
    expect(await store.stream("images/none.png")).toBeNull();
    await expect(store.put("../escape.png", Buffer.from("x"), "image/png")).rejects.toThrow(/invalid blob key/);
  });
});

describe("S3 blob store", () => {
  it("stores with the given content type and reads back", async () => {
    const store = s3Store();
    await store.put("images/a.png", Buffer.from("png-bytes"), "image/png");
    expect(await store.get("images/a.png")).toEqual({ data: Buffer.from("png-bytes"), contentType: "image/png" });
    // The content type is the one passed to put, not one guessed from the extension.
    await store.put("videos/b.bin", Buffer.from("mp4-bytes"), "video/mp4");
    expect(await store.head("videos/b.bin")).toEqual({ size: 9, contentType: "video/mp4" });
  });

  it("gives null for a missing key from get, head and stream", async () => {
    const store = s3Store();
    expect(await store.get("images/missing.png")).toBeNull();
    expect(await store.head("images/missing.png")).toBeNull();
    expect(await store.stream("images/missing.png")).toBeNull();
    expect(await store.stream("images/missing.png", { start: 0, end: 9 })).toBeNull();
  });

  it("rejects invalid keys before any request", async () => {
    const store = s3Store();
    for (const key of ["../escape.png", "/abs.png", "a//b.png", "images/../x.png", "images/sp ace.png", ""]) {
      await expect(store.put(key, Buffer.from("x"), "image/png"), key).rejects.toThrow(/invalid blob key/);
      await expect(store.get(key), key).rejects.toThrow(/invalid blob key/);
    }
    await expect(store.deleteOlderThan("../images", 0)).rejects.toThrow(/invalid blob key/);
  });

  it("streams a byte range exactly, and the whole object without one", async () => {
    const store = s3Store();
    const data = bytes(1000);
    await store.put("images/range.png", data, "image/png");
    expect((await store.head("images/range.png"))?.size).toBe(1000);
    const part = await readAll(await store.stream("images/range.png", { start: 10, end: 19 }));
    expect(part).toEqual(data.subarray(10, 20));
    expect(part?.length).toBe(10);
    expect(await readAll(await store.stream("images/range.png", { start: 999, end: 999 }))).toEqual(data.subarray(999));
    expect(await readAll(await store.stream("images/range.png"))).toEqual(data);
  });

  it("uploads a stream of unknown length (multipart past 5 MB)", async () => {
    const store = s3Store();
    // Seven 1 MB chunks: lib-storage sends a 5 MB part and a 2 MB part, then completes the upload.
    const chunks = Array.from({ length: 7 }, (_, i) => Buffer.alloc(1024 * 1024, i + 1));
    await store.put("videos/big.mp4", Readable.from(chunks), "video/mp4");
    expect(await store.head("videos/big.mp4")).toEqual({ size: 7 * 1024 * 1024, contentType: "video/mp4" });
    const blob = await store.get("videos/big.mp4");
    expect(blob?.data.equals(Buffer.concat(chunks))).toBe(true);
    // Across the part boundary at 5 MB.
    const at = 5 * 1024 * 1024;
    expect(await readAll(await store.stream("videos/big.mp4", { start: at - 2, end: at + 1 }))).toEqual(Buffer.from([5, 5, 6, 6]));

    // A small stream goes up in a single PutObject.
    await store.put("videos/small.mp4", Readable.from([Buffer.from("ab"), Buffer.from("cd")]), "video/mp4");
    expect(await store.get("videos/small.mp4")).toEqual({ data: Buffer.from("abcd"), contentType: "video/mp4" });
  });

  it("deletes, and deleting a missing key is no error", async () => {
    const store = s3Store();
    await store.put("images/gone.png", Buffer.from("x"), "image/png");
    await store.delete("images/gone.png");
    expect(await store.get("images/gone.png")).toBeNull();
    await expect(store.delete("images/gone.png")).resolves.toBeUndefined();
  });

  it("keeps keys apart by prefix", async () => {
    await s3Store("tenant-a").put("images/p.png", Buffer.from("a"), "image/png");
    expect(await s3Store("tenant-b").get("images/p.png")).toBeNull();
    expect((await s3Store("tenant-a/").get("images/p.png"))?.data).toEqual(Buffer.from("a"));
  });

  it("deletes only the old blobs, and only directly under the given prefix", async () => {
    const store = s3Store("sweep");
    for (const key of ["images/1.png", "images/2.png", "images/3.png", "images-other/x.png", "other/y.png", "images/nested/z.png"]) {
      await store.put(key, Buffer.from(key), "image/png");
    }
    // Just written: none is older than an hour.
    expect(await store.deleteOlderThan("images", 3600_000)).toBe(0);
    expect(await store.head("images/1.png")).not.toBeNull();
    // S3 keeps LastModified to the second and it cannot be set, so wait instead of backdating.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.deleteOlderThan("images", 0)).toBe(3);
    for (const key of ["images/1.png", "images/2.png", "images/3.png"]) expect(await store.get(key)).toBeNull();
    // Not under `images/`, or in a deeper folder (as with the filesystem store): kept.
    for (const key of ["images-other/x.png", "other/y.png", "images/nested/z.png"]) expect(await store.get(key)).not.toBeNull();
    expect(await store.deleteOlderThan("images", 0)).toBe(0);
    expect(await store.deleteOlderThan("nothing-here", 0)).toBe(0);
  });

  // s3rver encrypts continuation tokens with DES: vitest.config.ts gives the test workers
  // OpenSSL's legacy provider, without which any truncated listing fails with InternalError.
  it("sweeps more than one list page (over 1000 objects)", async () => {
    const store = s3Store("many");
    const keys = Array.from({ length: 1005 }, (_, i) => `images/${i}.png`);
    // s3rver deletes a batch's keys in parallel and then races to remove the emptied folder
    // (ENOENT, answered as InternalError); an object in a subfolder keeps the folder non-empty.
    await store.put("images/keep/k.png", Buffer.from("k"), "image/png");
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, Buffer.from("x"), "image/png")));
    }
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.deleteOlderThan("images", 0)).toBe(1005);
    expect(await store.head("images/1004.png")).toBeNull();
    expect(await store.head("images/keep/k.png")).not.toBeNull();
  }, 60_000);
});
