// Image generation, edits and variations through the openai SDK: b64_json and signed URLs,
// upload checks and limits, and the exact amounts billed.
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signQuery } from "../../server/infra/storage/signed-url";
import { setUpMediaModels, type MediaModels } from "../fakes/media-models";
import { newWorkspace, raw } from "../helpers";
import { balanceOf, png, usageEvent } from "../helpers-media";

const IMAGE = "test-images-image";
let media: MediaModels;

beforeAll(async () => {
  media = await setUpMediaModels("images-test", { image: IMAGE });
});
afterAll(async () => media?.stop());

describe("POST /v1/images/generations", () => {
  it("b64_json: real images, revised_prompt; billed per_image × images returned; the node is asked for b64_json", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const res = await openai.images.generate({ model: IMAGE, prompt: "a blue square", n: 3, size: "1024x1024", quality: "high", background: "opaque", output_format: "png" }).withResponse();
    expect(res.data.created).toBe(1700000000);
    expect(res.data.data).toHaveLength(3);
    const meta = await sharp(Buffer.from(res.data.data![0]!.b64_json!, "base64")).metadata();
    expect(meta.format).toBe("png");
    expect(res.data.data![0]!.revised_prompt).toBe("a blue square");
    const event = await usageEvent(res.response.headers.get("x-request-id"));
    expect(event?.images).toBe(3);
    expect(event!.cost.toString()).toBe("0.06");
    expect(await balanceOf(workspace.id)).toBe("0.94");
    expect(JSON.parse(media.fake.last!.body.toString())).toMatchObject({ model: IMAGE, response_format: "b64_json", n: 3, quality: "high" });
  });

  it("url: a signed link served without an API key; refused when tampered with (403) or expired (404)", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.images.generate({ model: IMAGE, prompt: "a blue square", response_format: "url" });
    const url = new URL(res.data![0]!.url!);
    expect(res.data![0]!.b64_json).toBeUndefined();
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/png");
    expect((await sharp(Buffer.from(await ok.arrayBuffer())).metadata()).width).toBe(8);
    const tampered = new URL(url);
    tampered.searchParams.set("signature", url.searchParams.get("signature")!.replace(/^./, (c) => (c === "A" ? "B" : "A")));
    const t = await fetch(tampered);
    expect(t.status).toBe(403);
    expect((await t.json()).error).toMatchObject({ code: "invalid_signature", type: "permission_error" });
    const later = new URL(url);
    later.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    expect((await fetch(later)).status).toBe(403);
    const name = url.pathname.split("/").pop()!;
    const old = signQuery(`images/${name}`, -10);
    const expired = await raw(`/v1/images/files/${name}?expires=${old.expires}&signature=${old.signature}`);
    expect(expired.status).toBe(404);
    expect((await expired.json()).error.code).toBe("image_expired");
    const other = signQuery("images/img_none.png", 60);
    expect((await raw(`/v1/images/files/img_none.png?expires=${other.expires}&signature=${other.signature}`)).status).toBe(404);
  });

  it.each([
    [{ prompt: "" }, "prompt"],
    [{ n: 11 }, "n"],
    [{ size: "1000x1000" }, "size"],
    [{ response_format: "png" }, "response_format"],
    [{ model: "local-tts" }, "model"],
  ])("rejects %j with 400 naming `%s`, costs nothing", async (patch, param) => {
    const { openai, workspace } = await newWorkspace("1");
    const err = await openai.images.generate({ model: IMAGE, prompt: "x", ...(patch as object) } as never).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error.param).toBe(param);
    expect(await balanceOf(workspace.id)).toBe("1");
  });

  it("402 before the node is called; a failing node costs nothing", async () => {
    const broke = await newWorkspace("0");
    const calls = media.fake.calls;
    expect((await broke.openai.images.generate({ model: IMAGE, prompt: "x" }).catch((e) => e)).status).toBe(402);
    expect(media.fake.calls).toBe(calls);
    const { openai, workspace } = await newWorkspace("1");
    media.fake.mode = "fail";
    try {
      expect((await openai.images.generate({ model: IMAGE, prompt: "x" }).catch((e) => e)).status).toBe(502);
    } finally {
      media.fake.mode = "ok";
    }
    expect(await balanceOf(workspace.id)).toBe("1");
  });
});

describe("POST /v1/images/edits and /variations", () => {
  it("edits: image and mask re-sent to the node; b64_json and url; billed per image", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const image = await toFile(await png(), "photo.png", { type: "image/png" });
    const mask = await toFile(await png(64, 64, "#00000000"), "mask.png", { type: "image/png" });
    const res = await openai.images.edit({ model: IMAGE, image, mask, prompt: "add a hat", n: 2, size: "512x512" });
    expect(res.data).toHaveLength(2);
    const sent = media.fake.last!.body.toString("latin1");
    expect(sent).toContain('name="image"; filename="photo.png"');
    expect(sent).toContain('name="mask"; filename="mask.png"');
    expect(sent).toContain('name="response_format"\r\n\r\nb64_json');
    const viaUrl = await openai.images.edit({ model: IMAGE, image: await toFile(await png(), "p.png"), prompt: "hat", response_format: "url" });
    expect((await fetch(viaUrl.data![0]!.url!)).status).toBe(200);
    expect(await balanceOf(workspace.id)).toBe("0.94");
  });

  it("variations: billed per image returned", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const res = await openai.images.createVariation({ model: IMAGE, image: await toFile(await png(), "p.png"), n: 4 }).withResponse();
    expect(res.data.data).toHaveLength(4);
    expect((await usageEvent(res.response.headers.get("x-request-id")))?.images).toBe(4);
    expect(await balanceOf(workspace.id)).toBe("0.92");
  });

  it.each([
    ["a missing image", "edit", { image: null }, "image", 400],
    ["a corrupt image", "edit", { image: () => toFile(Buffer.from("\x89PNG\r\n\x1a\nnot really"), "x.png") }, "image", 400],
    ["a text file as image", "variation", { image: () => toFile(Buffer.from("hello"), "x.png") }, "image", 400],
    ["a corrupt mask", "edit", { mask: () => toFile(Buffer.alloc(100, 3), "m.png") }, "mask", 400],
    ["a mask of another size", "edit", { mask: async () => toFile(await png(32, 32), "m.png") }, "mask", 400],
    ["a missing prompt", "edit", { prompt: undefined }, "prompt", 400],
    ["an image over the limit", "variation", { image: () => toFile(Buffer.alloc(17 * 1024 * 1024, 1), "big.png") }, "image", 413],
  ] as const)("refuses %s (%s, param %s), costs nothing", async (_label, kind, patch, param, status) => {
    const { openai, workspace } = await newWorkspace("1");
    const p = patch as Record<string, unknown>;
    const file = async (k: string) => (p[k] === null ? undefined : typeof p[k] === "function" ? await (p[k] as () => Promise<unknown>)() : k === "image" ? await toFile(await png(), "p.png") : undefined);
    const body = { model: IMAGE, prompt: "prompt" in p ? p.prompt : "a hat", image: await file("image"), mask: await file("mask") };
    const err = await (kind === "edit" ? openai.images.edit(body as never) : openai.images.createVariation(body as never)).catch((e) => e);
    expect(err.status).toBe(status);
    expect(err.error.param).toBe(param);
    expect(await balanceOf(workspace.id)).toBe("1");
  });
});
