// The built-in node's image endpoints over real HTTP with the official SDK: generations rendered
// from the prompt, edits that really apply the mask, variations derived from the input. Starts
// its own node; no gateway.
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node, openai, useLocalNode, apiError } from "../local-node-fixture";

const PROMPT = "A lighthouse on a rocky coast under a violet sky";

useLocalNode();

const bytesOf = (d: { b64_json?: string } | undefined) => Buffer.from(d!.b64_json!, "base64");
const raw = async (img: Buffer) => (await sharp(img).ensureAlpha().raw().toBuffer({ resolveWithObject: true })).data;

/** Mean absolute difference per channel value between two equally sized RGBA buffers. */
function meanDiff(a: Buffer, b: Buffer, from = 0, to = a.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / (to - from);
}

/** A 256x256 (or w x h) test picture: a horizontal gradient with a square. */
function picture(width = 256, height = 256): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g"><stop offset="0" stop-color="#103060"/><stop offset="1" stop-color="#f0c040"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><rect x="40" y="40" width="80" height="80" fill="#20a040"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

describe("local node image generations", () => {
  it("n=2 gives two different PNGs of the requested size, deterministically", async () => {
    const r = await openai.images.generate({ model: "local-image", prompt: PROMPT, n: 2, size: "512x512" });
    expect(r.data).toHaveLength(2);
    expect(r.data![0]!.revised_prompt).toBe(PROMPT);
    const [a, b] = r.data!.map(bytesOf);
    for (const img of [a!, b!]) expect(await sharp(img).metadata()).toMatchObject({ format: "png", width: 512, height: 512 });
    expect(a!.equals(b!)).toBe(false);
    const again = await openai.images.generate({ model: "local-image", prompt: PROMPT, n: 1, size: "512x512" });
    expect(bytesOf(again.data![0]).equals(a!)).toBe(true);
    const other = await openai.images.generate({ model: "local-image", prompt: "A bowl of ramen", size: "512x512" });
    expect(meanDiff(await raw(a!), await raw(bytesOf(other.data![0])))).toBeGreaterThan(10);
  });

  it("renders jpeg, webp, non-square sizes and transparent backgrounds; url still answers b64_json", async () => {
    const jpeg = await openai.images.generate({ model: "local-image", prompt: PROMPT, size: "1536x1024", output_format: "jpeg" });
    expect(await sharp(bytesOf(jpeg.data![0])).metadata()).toMatchObject({ format: "jpeg", width: 1536, height: 1024 });
    const webp = await openai.images.generate({ model: "local-image", prompt: PROMPT, size: "1024x1536", output_format: "webp" });
    expect(await sharp(bytesOf(webp.data![0])).metadata()).toMatchObject({ format: "webp", width: 1024, height: 1536 });
    const clear = await openai.images.generate({ model: "local-image", prompt: PROMPT, size: "256x256", background: "transparent" });
    const { data } = await sharp(bytesOf(clear.data![0])).raw().toBuffer({ resolveWithObject: true });
    expect(data.some((_, i) => i % 4 === 3 && data[i]! < 255)).toBe(true);
    const url = await openai.images.generate({ model: "local-image", prompt: PROMPT, size: "256x256", response_format: "url" });
    expect(url.data![0]!.b64_json).toBeTruthy();
    const auto = await openai.images.generate({ prompt: PROMPT, size: "auto" } as never);
    expect(await sharp(bytesOf((auto as OpenAI.ImagesResponse).data![0])).metadata()).toMatchObject({ width: 1024, height: 1024 });
  });

  it("rejects bad fields naming the param", async () => {
    const gen = (body: Record<string, unknown>) => apiError(openai.images.generate({ model: "local-image", prompt: PROMPT, ...body } as never));
    expect(await gen({ prompt: undefined })).toMatchObject({ status: 400, param: "prompt" });
    expect(await gen({ prompt: "x".repeat(32001) })).toMatchObject({ status: 400, param: "prompt" });
    expect(await gen({ n: 11 })).toMatchObject({ status: 400, param: "n" });
    expect(await gen({ size: "300x300" })).toMatchObject({ status: 400, param: "size" });
    expect(await gen({ output_format: "gif" })).toMatchObject({ status: 400, param: "output_format" });
    expect(await gen({ output_format: "jpeg", background: "transparent" })).toMatchObject({ status: 400, param: "background" });
    expect(await gen({ model: "dall-e-9" })).toMatchObject({ status: 404, code: "model_not_found", param: "model" });
  });
});

describe("local node image edits", () => {
  it("replaces the masked (transparent) half and keeps the other half's pixels", async () => {
    const input = await picture();
    // mask: left half alpha 0 (edit), right half opaque (keep)
    const maskRaw = Buffer.alloc(256 * 256 * 4, 255);
    for (let y = 0; y < 256; y++) for (let x = 0; x < 128; x++) maskRaw[(y * 256 + x) * 4 + 3] = 0;
    const mask = await sharp(maskRaw, { raw: { width: 256, height: 256, channels: 4 } }).png().toBuffer();
    const r = await openai.images.edit({ model: "local-image", prompt: PROMPT, image: await toFile(input, "in.png", { type: "image/png" }), mask: await toFile(mask, "mask.png", { type: "image/png" }) });
    const out = bytesOf(r.data![0]);
    expect(await sharp(out).metadata()).toMatchObject({ format: "png", width: 256, height: 256 });
    const [a, b] = [await raw(input), await raw(out)];
    let kept = 0;
    let changed = 0;
    for (let y = 0; y < 256; y++) {
      for (let x = 0; x < 256; x++) {
        const p = (y * 256 + x) * 4;
        const same = a[p] === b[p] && a[p + 1] === b[p + 1] && a[p + 2] === b[p + 2];
        if (x >= 128) kept += same ? 1 : 0;
        else changed += same ? 0 : 1;
      }
    }
    expect(kept).toBe(128 * 256); // every unmasked pixel is the original's
    expect(changed).toBeGreaterThan(128 * 256 * 0.9); // the masked half is new content
  });

  it("blends over the whole image without a mask; resizes; accepts image[]; rejects bad files", async () => {
    const input = await picture();
    const r = await openai.images.edit({ model: "local-image", prompt: PROMPT, image: await toFile(input, "in.png", { type: "image/png" }), n: 2, size: "512x512" });
    expect(r.data).toHaveLength(2);
    expect(await sharp(bytesOf(r.data![0])).metadata()).toMatchObject({ width: 512, height: 512 });
    const plain = await openai.images.edit({ model: "local-image", prompt: PROMPT, image: [await toFile(input, "in.png", { type: "image/png" })] });
    const diff = meanDiff(await raw(input), await raw(bytesOf(plain.data![0])));
    expect(diff).toBeGreaterThan(5);
    expect(diff).toBeLessThan(100);
    const small = await sharp(Buffer.alloc(64 * 64 * 4), { raw: { width: 64, height: 64, channels: 4 } }).png().toBuffer();
    const edit = async (image: Buffer, mask?: Buffer) =>
      apiError(openai.images.edit({ model: "local-image", prompt: PROMPT, image: await toFile(image, "in.png", { type: "image/png" }), ...(mask ? { mask: await toFile(mask, "m.png", { type: "image/png" }) } : {}) }));
    expect(await edit(input, small)).toMatchObject({ status: 400, param: "mask" });
    expect(await edit(Buffer.from("\x89PNG\r\n\x1a\nbroken"))).toMatchObject({ status: 400, param: "image" });
    expect(await apiError(openai.images.edit({ model: "local-image", prompt: "", image: await toFile(input, "in.png") }))).toMatchObject({ status: 400, param: "prompt" });
  });
});

describe("local node image variations", () => {
  it("derive from the input, differ from it and from each other, and keep the size rules", async () => {
    const input = await picture(300, 200);
    const r = await openai.images.createVariation({ model: "local-image", image: await toFile(input, "in.png", { type: "image/png" }), n: 2 });
    expect(r.data).toHaveLength(2);
    const [a, b] = r.data!.map(bytesOf);
    for (const img of [a!, b!]) expect(await sharp(img).metadata()).toMatchObject({ format: "png", width: 300, height: 200 });
    const [ri, ra, rb] = [await raw(input), await raw(a!), await raw(b!)];
    expect(meanDiff(ri, ra)).toBeGreaterThan(5);
    expect(meanDiff(ra, rb)).toBeGreaterThan(5);
    const sized = await openai.images.createVariation({ model: "local-image", image: await toFile(input, "in.png", { type: "image/png" }), size: "256x256" });
    expect(await sharp(bytesOf(sized.data![0])).metadata()).toMatchObject({ width: 256, height: 256 });
    // same input, same index: same variation
    const again = await openai.images.createVariation({ model: "local-image", image: await toFile(input, "in.png", { type: "image/png" }) });
    expect(bytesOf(again.data![0]).equals(a!)).toBe(true);
    const bad = await apiError(openai.images.createVariation({ model: "local-image", image: await toFile(Buffer.from("GIF89a nope"), "x.png") }));
    expect(bad).toMatchObject({ status: 400, param: "image" });
  });
});
