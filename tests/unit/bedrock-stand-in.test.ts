// The Bedrock stand-in (tests/fakes/bedrock-upstream.ts) is what Bedrock is to the official SDK:
// BedrockRuntimeClient signs its calls (the stand-in checks the signature), reads its Converse
// answer, decodes its ConverseStream and InvokeModelWithResponseStream event streams and its
// exception frames, and a wrong secret is refused as Bedrock refuses it.
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, InvokeModelWithResponseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONVERSE, KEYS, REASONING, REGION, SIGNATURE, startBedrockUpstream, type BedrockUpstream } from "../fakes/bedrock-upstream";

let fake: BedrockUpstream;
// Over HTTP/1.1 (the SDK's default handler speaks HTTP/2, which the stand-in does not).
const client = (secret = KEYS.secret_access_key) =>
  new BedrockRuntimeClient({ region: REGION, endpoint: fake.url, maxAttempts: 1, requestHandler: new NodeHttpHandler(), credentials: { accessKeyId: KEYS.access_key_id, secretAccessKey: secret } });

beforeAll(async () => {
  fake = await startBedrockUpstream();
});
afterAll(() => fake.close());

describe("the Bedrock stand-in, read by the official SDK", () => {
  it("Converse: the SDK's signed call is accepted and its answer parsed (text, usage with cache tokens)", async () => {
    fake.converse = CONVERSE.cached;
    const out = await client().send(new ConverseCommand({ modelId: "amazon.nova-wiretest-v1:0", messages: [{ role: "user", content: [{ text: "hello" }] }] }));
    expect(fake.last!.path).toBe("/model/amazon.nova-wiretest-v1%3A0/converse");
    expect(out.output?.message?.content).toEqual([{ text: "From the cached document: yes." }]);
    expect(out.stopReason).toBe("end_turn");
    expect(out.usage).toMatchObject({ inputTokens: 7, outputTokens: 9, cacheReadInputTokens: 3400, cacheWriteInputTokens: 1200 });
  });

  it("ConverseStream: reasoning with its signature, text in pieces, the stop reason and the usage", async () => {
    fake.converse = CONVERSE.reasoning;
    const out = await client().send(new ConverseStreamCommand({ modelId: "us.amazon.nova-wiretest-v1:0", messages: [{ role: "user", content: [{ text: "hi" }] }] }));
    let reasoning = "";
    let signature = "";
    let text = "";
    const kinds: string[] = [];
    for await (const event of out.stream!) {
      kinds.push(Object.keys(event).find((k) => k !== "$unknown")!);
      reasoning += event.contentBlockDelta?.delta?.reasoningContent?.text ?? "";
      signature += event.contentBlockDelta?.delta?.reasoningContent?.signature ?? "";
      text += event.contentBlockDelta?.delta?.text ?? "";
      if (event.messageStop) expect(event.messageStop.stopReason).toBe("end_turn");
      if (event.metadata) expect(event.metadata.usage).toMatchObject({ inputTokens: 30, outputTokens: 64 });
    }
    expect([reasoning, signature, text]).toEqual([REASONING, SIGNATURE, "Hello!"]);
    expect(kinds[0]).toBe("messageStart");
    expect(kinds.slice(-2)).toEqual(["messageStop", "metadata"]);
  });

  it("ConverseStream: parallel tool uses, their input streamed as JSON pieces", async () => {
    fake.converse = CONVERSE.parallel;
    const out = await client().send(new ConverseStreamCommand({ modelId: "amazon.nova-wiretest-v1:0", messages: [{ role: "user", content: [{ text: "Paris?" }] }] }));
    const inputs: Record<number, { name?: string; input: string }> = {};
    for await (const event of out.stream!) {
      const start = event.contentBlockStart;
      if (start?.start?.toolUse) inputs[start.contentBlockIndex!] = { name: start.start.toolUse.name, input: "" };
      const delta = event.contentBlockDelta;
      if (delta?.delta?.toolUse) inputs[delta.contentBlockIndex!]!.input += delta.delta.toolUse.input;
    }
    expect(Object.values(inputs).map((i) => [i.name, JSON.parse(i.input)])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { timezone: "Europe/Paris", format: { hours: 24 } }],
    ]);
  });

  it("InvokeModelWithResponseStream on Claude: chunk events whose bytes are Anthropic's events; an exception frame is the SDK's error", async () => {
    const out = await client().send(new InvokeModelWithResponseStreamCommand({ modelId: "us.anthropic.claude-wiretest-v1:0", contentType: "application/json", body: JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }) }));
    const types: string[] = [];
    for await (const event of out.body!) types.push(JSON.parse(Buffer.from(event.chunk!.bytes!).toString()).type);
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
    expect(types).toContain("content_block_delta");

    fake.mode = "stream-exception";
    const failing = await client().send(new ConverseStreamCommand({ modelId: "amazon.nova-wiretest-v1:0", messages: [{ role: "user", content: [{ text: "hi" }] }] }));
    const error = await (async () => {
      for await (const _ of failing.stream!);
    })().catch((e: Error) => e);
    fake.mode = "ok";
    expect(error).toMatchObject({ name: "ModelStreamErrorException", message: "The model stream failed: try again." });
  });

  it("a wrong secret is refused with Bedrock's 403 (InvalidSignatureException)", async () => {
    const error = await client("not-the-secret").send(new ConverseCommand({ modelId: "amazon.nova-wiretest-v1:0", messages: [{ role: "user", content: [{ text: "hi" }] }] })).catch((e: Error) => e);
    expect(error).toMatchObject({ name: "InvalidSignatureException", $metadata: { httpStatusCode: 403 } });
  });
});
