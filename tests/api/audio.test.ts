// Speech, transcription and translation through the openai SDK: formats, upload types and limits,
// and the exact amounts billed. Test-only models on a stand-in node give exact, known answers.
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney, money } from "../../server/kernel/money";
import { FAKE_AUDIO } from "../fakes/media-upstream";
import { setUpMediaModels, type MediaModels } from "../fakes/media-models";
import { newWorkspace, raw } from "../helpers";
import { balanceOf, usageEvent, wav } from "../helpers-media";

const TTS = "test-audio-tts";
const STT = "test-audio-stt";
let media: MediaModels;

beforeAll(async () => {
  media = await setUpMediaModels("audio-test", { tts: TTS, stt: STT });
});
afterAll(async () => media?.stop());

describe("POST /v1/audio/speech", () => {
  it("streams the node's audio with its content type; billed per_1m_chars on the input's characters", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const input = "Héllo wörld 👋, this is speech.";
    const res = await openai.audio.speech.create({ model: TTS, input, voice: "alloy" }).withResponse();
    expect(res.response.headers.get("content-type")).toBe("audio/mpeg");
    const bytes = Buffer.from(await res.data.arrayBuffer());
    expect(bytes.equals(FAKE_AUDIO)).toBe(true);
    const chars = [...input].length;
    const event = await usageEvent(res.response.headers.get("x-request-id"));
    expect(event?.characters).toBe(chars);
    const cost = formatMoney(money("15").times(chars).dividedBy(1_000_000));
    expect(formatMoney(event!.cost)).toBe(cost);
    expect(await balanceOf(workspace.id)).toBe(formatMoney(money(1).minus(cost)));
    expect(JSON.parse(media.fake.last!.body.toString())).toMatchObject({ model: TTS, voice: "alloy", response_format: "mp3", input });
  });

  it.each([["wav", "audio/wav"], ["opus", "audio/ogg"], ["aac", "audio/aac"], ["flac", "audio/flac"], ["pcm", "audio/pcm"]] as const)(
    "response_format %s answers %s",
    async (format, type) => {
      const { openai } = await newWorkspace("1");
      const res = await openai.audio.speech.create({ model: TTS, input: "hi", voice: "nova", response_format: format, speed: 1.5 }).withResponse();
      expect(res.response.headers.get("content-type")).toBe(type);
      expect((await res.data.arrayBuffer()).byteLength).toBe(FAKE_AUDIO.length);
    },
  );

  it.each([
    [{ voice: undefined }, "voice"],
    [{ input: "" }, "input"],
    [{ input: "x".repeat(4097) }, "input"],
    [{ speed: 5 }, "speed"],
    [{ response_format: "ogg" }, "response_format"],
    [{ model: "local-chat-sim" }, "model"],
  ])("rejects %j with 400 naming `%s`", async (patch, param) => {
    const { openai } = await newWorkspace("1");
    const err = await openai.audio.speech.create({ model: TTS, input: "hello", voice: "alloy", ...(patch as object) } as never).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error.param).toBe(param);
  });

  it("402 before the node is called when the balance is zero; a failing node costs nothing", async () => {
    const broke = await newWorkspace("0");
    const calls = media.fake.calls;
    const err = await broke.openai.audio.speech.create({ model: TTS, input: "hello", voice: "alloy" }).catch((e) => e);
    expect(err.status).toBe(402);
    expect(err.error.code).toBe("insufficient_quota");
    expect(media.fake.calls).toBe(calls);
    const { openai, workspace, secret } = await newWorkspace("1");
    media.fake.mode = "fail";
    try {
      const failed = await openai.audio.speech.create({ model: TTS, input: "hello", voice: "alloy" }).withResponse().catch((e) => e);
      expect(failed.status).toBe(502);
      expect(await usageEvent(failed.headers.get("x-request-id"))).toBeNull();
      media.fake.mode = "break";
      // Broken off mid-stream: the client's connection breaks too (before or after the headers).
      const outcome = await raw("/v1/audio/speech", { method: "POST", key: secret, body: JSON.stringify({ model: TTS, input: "hello", voice: "alloy" }), headers: { "content-type": "application/json" } })
        .then((res) => res.arrayBuffer())
        .then(() => "complete", () => "broken");
      expect(outcome).toBe("broken");
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      media.fake.mode = "ok";
    }
    expect(await balanceOf(workspace.id)).toBe("1");
  });
});

describe("POST /v1/audio/transcriptions and /translations", () => {
  const audio = () => toFile(wav(2.5), "speech.wav");

  it("no format: the full result (text, language, duration, segments); billed per_audio_second on the duration the gateway decoded", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const res = await openai.audio.transcriptions.create({ model: STT, file: await audio() }).withResponse();
    expect(res.data).toMatchObject({ text: "hello world", language: "english", duration: 2.5 });
    const { segments } = res.data as unknown as { segments: { id: number; start: number; end: number; text: string }[] };
    expect(segments.length).toBeGreaterThan(0);
    expect(segments[0]).toMatchObject({ id: 0, start: expect.any(Number), end: expect.any(Number), text: expect.any(String) });
    expect(media.fake.last!.body.toString("latin1")).toContain('name="response_format"\r\n\r\nverbose_json');
    const event = await usageEvent(res.response.headers.get("x-request-id"));
    expect(formatMoney(event!.audioSeconds)).toBe("2.5");
    expect(formatMoney(event!.cost)).toBe("0.00025");
    expect(await balanceOf(workspace.id)).toBe("0.99975");
    const sent = media.fake.last!.body.toString("latin1");
    expect(sent).toContain(`name="model"\r\n\r\n${STT}`);
    expect(sent).toContain('filename="speech.wav"');
  });

  it("json: OpenAI's {text}", async () => {
    const { openai } = await newWorkspace("1");
    expect(await openai.audio.transcriptions.create({ model: STT, file: await audio(), response_format: "json" })).toEqual({ text: "hello world" });
  });

  it("verbose_json carries task, language, duration and OpenAI's segment fields", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.audio.transcriptions.create({ model: STT, file: await audio(), response_format: "verbose_json", timestamp_granularities: ["segment"], language: "en", temperature: 0.2, prompt: "greeting" });
    expect(res).toMatchObject({ task: "transcribe", language: "english", duration: 2.5, text: "hello world" });
    for (const key of ["id", "seek", "start", "end", "text", "tokens", "temperature", "avg_logprob", "compression_ratio", "no_speech_prob"]) expect(res.segments![0]).toHaveProperty(key);
    const sent = media.fake.last!.body.toString("latin1");
    expect(sent).toContain('name="timestamp_granularities[]"\r\n\r\nsegment');
    expect(sent).toContain('name="language"\r\n\r\nen');
  });

  it.each([["text", "hello world"], ["srt", "00:00:00,000 --> 00:00:02,500"], ["vtt", "WEBVTT"]] as const)("%s answers text/plain", async (format, expected) => {
    const { openai } = await newWorkspace("1");
    const res = await openai.audio.transcriptions.create({ model: STT, file: await audio(), response_format: format }).withResponse();
    expect(res.response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(String(res.data)).toContain(expected);
  });

  it("translations: json and verbose_json, billed alike", async () => {
    const { openai, workspace } = await newWorkspace("1");
    expect(await openai.audio.translations.create({ model: STT, file: await audio(), response_format: "json" })).toEqual({ text: "hello world" });
    expect(await openai.audio.translations.create({ model: STT, file: await audio() })).toMatchObject({ text: "hello world", language: "english", duration: 2.5 });
    const verbose = await openai.audio.translations.create({ model: STT, file: await audio(), response_format: "verbose_json" });
    expect(verbose).toMatchObject({ task: "translate", duration: 2.5 });
    expect(media.fake.last!.path).toBe("/v1/audio/translations");
    expect(await balanceOf(workspace.id)).toBe("0.99925");
  });

  it.each([
    ["a missing file", { file: null }, "file", 400],
    ["a wrong type", { file: () => toFile(Buffer.from("just text"), "notes.txt") }, "file", 400],
    ["an image named .wav", { file: async () => toFile(Buffer.from(await (await import("../helpers-media")).png()), "fake.wav") }, "file", 400],
    ["a corrupt file", { file: () => toFile(Buffer.concat([wav(1).subarray(0, 20), Buffer.alloc(4000, 0xab)]), "broken.mp3") }, "file", 400],
    ["timestamp_granularities with json", { timestamp_granularities: ["word"], response_format: "json" }, "timestamp_granularities", 400],
    ["a temperature above 1", { temperature: 1.5 }, "temperature", 400],
    ["a non-transcription model", { model: TTS }, "model", 400],
  ] as const)("refuses %s (param %s), costs nothing", async (_label, patch, param, status) => {
    const { openai, workspace } = await newWorkspace("1");
    const { file, ...rest } = patch as { file?: (() => Promise<unknown>) | null };
    const body = { model: STT, ...rest, ...(file === null ? {} : { file: file ? await file() : await audio() }) };
    const err = await openai.audio.transcriptions.create(body as never).catch((e) => e);
    expect(err.status).toBe(status);
    expect(err.error.param).toBe(param);
    expect(await balanceOf(workspace.id)).toBe("1");
  });

  it("413 for an upload over 25 MB", async () => {
    const { openai } = await newWorkspace("1");
    const big = Buffer.alloc(26 * 1024 * 1024, 1);
    const err = await openai.audio.transcriptions.create({ model: STT, file: await toFile(big, "big.wav") }).catch((e) => e);
    expect(err.status).toBe(413);
    expect(err.error.code).toBe("request_too_large");
    expect(err.error.param).toBe("file");
  });

  it("a JSON body is a 400, not a 500", async () => {
    const { secret } = await newWorkspace("1");
    const res = await raw("/v1/audio/transcriptions", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(400);
  });
});
