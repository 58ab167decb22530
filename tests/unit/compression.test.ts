import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { COMPRESS_MIN_BYTES, encodeLargeJson, negotiateEncoding } from "../../server/transport/compression";

describe("the coding of a compressible answer, from Accept-Encoding", () => {
  it("brotli when offered alongside gzip at the same weight (what OpenAI's SDKs send over https)", () => {
    expect(negotiateEncoding("gzip, deflate, br")).toBe("br");
    expect(negotiateEncoding("br;q=1.0, gzip;q=0.8, *;q=0.1")).toBe("br");
  });

  it("gzip when only it is offered, or weighed above brotli", () => {
    expect(negotiateEncoding("gzip, deflate")).toBe("gzip");
    expect(negotiateEncoding("GZip")).toBe("gzip");
    expect(negotiateEncoding("x-gzip")).toBe("gzip");
    expect(negotiateEncoding("br;q=0.5, gzip")).toBe("gzip");
  });

  it("none without the header, for codings it does not make, or when refused with q=0", () => {
    expect(negotiateEncoding(undefined)).toBeUndefined();
    expect(negotiateEncoding("")).toBeUndefined();
    expect(negotiateEncoding("identity")).toBeUndefined();
    expect(negotiateEncoding("deflate, zstd")).toBeUndefined();
    expect(negotiateEncoding("br;q=0, gzip;q=0")).toBeUndefined();
    expect(negotiateEncoding("gzip;q=bogus")).toBeUndefined();
  });

  it("`*` stands for the codings not named", () => {
    expect(negotiateEncoding("*")).toBe("br");
    expect(negotiateEncoding("br;q=0, *")).toBe("gzip");
    expect(negotiateEncoding("*;q=0")).toBeUndefined();
  });

  it("none when the client weighs identity above every coding it accepts", () => {
    expect(negotiateEncoding("identity;q=1, gzip;q=0.5")).toBeUndefined();
    expect(negotiateEncoding("identity;q=0.5, gzip")).toBe("gzip");
  });
});

describe("a large JSON answer as it goes out", () => {
  const body = JSON.stringify({ data: Array.from({ length: 100 }, (_, i) => ({ id: `model-${i}`, object: "model" })) });
  const bytes = Buffer.byteLength(body);

  it("compressed in the coding chosen, with its own length, Vary kept and extended", async () => {
    expect(bytes).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES);
    const br = await encodeLargeJson({ "content-type": "application/json", vary: "Origin" }, body, bytes, "gzip, br");
    expect(br.headers).toMatchObject({ "content-encoding": "br", vary: "Origin, Accept-Encoding", "content-length": String(br.body.length) });
    expect(brotliDecompressSync(br.body as Buffer).toString("utf8")).toBe(body);
    const gz = await encodeLargeJson({ "content-type": "application/json" }, body, bytes, "gzip");
    expect(gz.headers).toMatchObject({ "content-encoding": "gzip", vary: "Accept-Encoding" });
    expect(gunzipSync(gz.body as Buffer).toString("utf8")).toBe(body);
    expect(gz.body.length).toBeLessThan(bytes / 4);
  });

  it("a body past the size compressed on the event loop is compressed on the thread pool to the same bytes", async () => {
    const big = JSON.stringify({ data: Array.from({ length: 5000 }, (_, i) => ({ index: i, embedding: [i / 7, i / 11, i / 13] })) });
    const out = await encodeLargeJson({}, big, Buffer.byteLength(big), "br");
    expect(Buffer.byteLength(big)).toBeGreaterThan(64 * 1024);
    expect(brotliDecompressSync(out.body as Buffer).toString("utf8")).toBe(big);
  });

  it("as it is for a client that accepts no coding, with Vary all the same", async () => {
    const out = await encodeLargeJson({ "content-type": "application/json" }, body, bytes, undefined);
    expect(out.body).toBe(body);
    expect(out.headers).toEqual({ "content-type": "application/json", vary: "Accept-Encoding", "content-length": String(bytes) });
  });
});
