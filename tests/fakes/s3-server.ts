// A real S3-compatible server for tests: s3rver (from npm) on a free port, in a temp folder.
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { S3BlobStore } from "../../server/infra/storage/s3-blob-store";

// s3rver ships no type declarations; this is the little of it used here.
type S3rverOptions = { port: number; address: string; silent: boolean; directory: string; configureBuckets: { name: string }[] };
type S3rver = { run(): Promise<AddressInfo>; close(): Promise<void> };
const S3rver = createRequire(import.meta.url)("s3rver") as new (options: S3rverOptions) => S3rver;

export const BUCKET = "gateway-test";

export type S3Server = { endpoint: string; store: (prefix?: string) => S3BlobStore; close: () => Promise<void> };

export async function startS3Server(): Promise<S3Server> {
  const dir = mkdtempSync(path.join(tmpdir(), "s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    store: (prefix = "") =>
      new S3BlobStore({ bucket: BUCKET, endpoint, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true, prefix }),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
