// The audio and image endpoints against the built-in node's real models (local-tts, local-stt,
// local-image).
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { toFile } from "openai";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { formatMoney, money } from "../../server/kernel/money";
import { newWorkspace } from "../helpers";
import { balanceOf, png, usageEvent, wav } from "../helpers-media";

describe("built-in node media models", () => {
  it("local-tts: real audio, billed per_1m_chars", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const res = await openai.audio.speech.create({ model: "local-tts", input: "Hello from the gateway.", voice: "alloy", response_format: "wav" }).withResponse();
    expect(res.response.headers.get("content-type")).toMatch(/^audio\//);
    expect((await res.data.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const event = await usageEvent(res.response.headers.get("x-request-id"));
    expect(formatMoney(event!.cost)).toBe(formatMoney(money(15).times(23).dividedBy(1e6)));
    expect(await balanceOf(workspace.id)).toBe(formatMoney(money(1).minus(event!.cost.toString())));
  });

  it("local-stt: billed on the duration the gateway decoded", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.audio.transcriptions.create({ model: "local-stt", file: await toFile(wav(3), "tone.wav"), response_format: "verbose_json" }).withResponse();
    expect(typeof res.data.text).toBe("string");
    const event = await usageEvent(res.response.headers.get("x-request-id"));
    expect(formatMoney(event!.audioSeconds)).toBe("3");
    expect(formatMoney(event!.cost)).toBe("0.0003");
  });

  it("local-stt: a file whose header understates its length is billed on its decoded packets", async () => {
    // 3 s at 320 kb/s then 60 s at 8 kb/s, without a Xing header: estimated from the first
    // frame's bitrate, the file "lasts" about 4.5 s; its packets last 63 s.
    const ffmpeg = createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg").path as string;
    const mp3 = (seconds: number, bitrate: string) =>
      execFileSync(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`, "-ar", "22050", "-b:a", bitrate, "-write_xing", "0", "-f", "mp3", "-"]);
    const upload = Buffer.concat([mp3(3, "320k"), mp3(60, "8k")]);
    const { openai } = await newWorkspace("1");
    const res = await openai.audio.transcriptions.create({ model: "local-stt", file: await toFile(upload, "joined.mp3") }).withResponse();
    const event = await usageEvent(res.response.headers.get("x-request-id"));
    expect(Number(event!.audioSeconds)).toBeGreaterThan(62);
    expect(Number(event!.audioSeconds)).toBeLessThan(64);
  });

  it("local-image: generations, edits and variations, billed per image", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const gen = await openai.images.generate({ model: "local-image", prompt: "a lighthouse", n: 2, size: "256x256" });
    expect(gen.data).toHaveLength(2);
    expect((await sharp(Buffer.from(gen.data![0]!.b64_json!, "base64")).metadata()).width).toBe(256);
    const edit = await openai.images.edit({ model: "local-image", image: await toFile(await png(256, 256), "p.png"), mask: await toFile(await png(256, 256, "#00000000"), "m.png"), prompt: "hat" });
    expect(edit.data).toHaveLength(1);
    const vary = await openai.images.createVariation({ model: "local-image", image: await toFile(await png(256, 256), "p.png"), response_format: "url" });
    expect((await fetch(vary.data![0]!.url!)).status).toBe(200);
    expect(await balanceOf(workspace.id)).toBe(formatMoney(money(1).minus(money("0.02").times(4))));
  });
});
