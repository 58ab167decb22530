// The S3 blob store: one object per blob in a bucket (AWS S3 or any S3-compatible service such as
// MinIO or R2), under an optional key prefix; the content type is the one given to `put`.
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type GetObjectCommandOutput,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { contentTypeOf, isValidKey, type Blob, type BlobInfo, type BlobStore, type ByteRange } from "./blob-types";

export type S3BlobStoreOptions = {
  bucket: string;
  /** An S3-compatible service; unset: AWS S3 in `region`. */
  endpoint?: string;
  region: string;
  /** Both or neither; without them the SDK's default credential chain decides. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** Prepended to every key, as `prefix/key`; may be empty. */
  prefix: string;
};

/** A missing object: GetObject answers NoSuchKey, HeadObject (no body) a bare 404 "NotFound". */
const missing = (err: unknown) => err instanceof S3ServiceException && (err.name === "NoSuchKey" || err.name === "NotFound");

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3BlobStoreOptions) {
    const { bucket, endpoint, region, accessKeyId, secretAccessKey, forcePathStyle, prefix } = options;
    this.client = new S3Client({
      region,
      forcePathStyle,
      ...(endpoint ? { endpoint } : {}),
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    });
    this.bucket = bucket;
    this.prefix = prefix.replace(/^\/+|\/+$/g, "");
  }

  private objectKey(key: string): string {
    if (!isValidKey(key)) throw new Error(`invalid blob key: ${key}`);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, data: Uint8Array | Readable, contentType: string): Promise<void> {
    const params = { Bucket: this.bucket, Key: this.objectKey(key), ContentType: contentType };
    if (data instanceof Uint8Array) {
      await this.client.send(new PutObjectCommand({ ...params, Body: data, ContentLength: data.byteLength }));
    } else {
      // Unknown length: lib-storage buffers parts and switches to a multipart upload past 5 MB.
      await new Upload({ client: this.client, params: { ...params, Body: data } }).done();
    }
  }

  private async getObject(key: string, range?: ByteRange): Promise<GetObjectCommandOutput | null> {
    const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Range }));
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async get(key: string): Promise<Blob | null> {
    const res = await this.getObject(key);
    if (!res?.Body) return null;
    const data = Buffer.from(await res.Body.transformToByteArray());
    return { data, contentType: res.ContentType ?? contentTypeOf(key) };
  }

  async head(key: string): Promise<BlobInfo | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { size: res.ContentLength ?? 0, contentType: res.ContentType ?? contentTypeOf(key) };
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async stream(key: string, range?: ByteRange): Promise<Readable | null> {
    const body = (await this.getObject(key, range))?.Body;
    if (!body) return null;
    // In Node the SDK's body is an http.IncomingMessage; the web stream case is for other runtimes.
    if (body instanceof Readable) return body;
    return Readable.fromWeb(body.transformToWebStream() as WebReadableStream);
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 whether or not the object existed.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async deleteOlderThan(prefix: string, ageMs: number): Promise<number> {
    // Like the filesystem store: only the blobs directly under `prefix/`, not in deeper "folders".
    const Prefix = `${this.objectKey(prefix)}/`;
    const cutoff = Date.now() - ageMs;
    let deleted = 0;
    let ContinuationToken: string | undefined;
    do {
      // A page holds at most 1000 keys, which is also DeleteObjects' limit per request.
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix, Delimiter: "/", ContinuationToken }),
      );
      const old = (page.Contents ?? []).filter((o) => o.Key && o.LastModified && o.LastModified.getTime() < cutoff);
      if (old.length) {
        const res = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: old.map((o) => ({ Key: o.Key })), Quiet: true },
          }),
        );
        const failed = res.Errors ?? [];
        deleted += old.length - failed.length;
        if (failed.length) throw new Error(`could not delete ${failed.length} blobs, e.g. ${failed[0]?.Key}: ${failed[0]?.Message}`);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return deleted;
  }
}
