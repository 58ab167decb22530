import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BlobStore } from "../../server/infra/storage/blob-types";
import { FileBlobStore } from "../../server/infra/storage/fs-blob-store";

const root = mkdtempSync(path.join(tmpdir(), "blobs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("filesystem blob store", () => {
  it("stores, reads back with the content type of its extension, and refuses unsafe keys", async () => {
    const store: BlobStore = new FileBlobStore(root);
    await store.put("images/a.png", Buffer.from("png-bytes"), "image/png");
    expect(await store.get("images/a.png")).toEqual({ data: Buffer.from("png-bytes"), contentType: "image/png" });
    expect(await store.get("images/missing.png")).toBeNull();
    await expect(store.put("../escape.png", Buffer.from("x"), "image/png")).rejects.toThrow();
  });

  it("deletes only the blobs older than the given age (expired image links)", async () => {
    const store: BlobStore = new FileBlobStore(root);
    await store.put("images/old.png", Buffer.from("old"), "image/png");
    await store.put("images/new.png", Buffer.from("new"), "image/png");
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(path.join(root, "images/old.png"), twoHoursAgo, twoHoursAgo);
    expect(await store.deleteOlderThan("images", 3600_000)).toBe(1);
    expect(await store.get("images/old.png")).toBeNull();
    expect(await store.get("images/new.png")).not.toBeNull();
  });
});
