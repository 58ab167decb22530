import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { newWorkspace } from "../helpers";

const MODEL = "local-embed-ngram";
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("embeddings", () => {
  it("embeds strings (the SDK asks for base64 and decodes it), similar texts closer, billed on input tokens", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const { data, response } = await openai.embeddings
      .create({ model: MODEL, input: ["the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew"] })
      .withResponse();
    expect(data.model).toBe(MODEL);
    expect(data.object).toBe("list");
    const [a, b, c] = data.data.map((d) => d.embedding);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
    expect(data.usage.prompt_tokens).toBeGreaterThan(0);
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(event.inputTokens).toBe(data.usage.prompt_tokens);
    expect(formatMoney(event.cost)).toBe(formatMoney(money("0.02").times(data.usage.prompt_tokens).dividedBy(1_000_000)));
    expect(event.workspaceId).toBe(workspace.id);
  });

  it("accepts token arrays, honours dimensions and float encoding", async () => {
    const { openai } = await newWorkspace("1");
    const res = await openai.embeddings.create({ model: MODEL, input: [[1820, 8415], [40, 1093]], dimensions: 64, encoding_format: "float" });
    expect(res.data).toHaveLength(2);
    expect(res.data[0]!.embedding).toHaveLength(64);
    const norm = Math.sqrt(res.data[0]!.embedding.reduce((s, x) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 5);
  });

  it.each([
    [{ input: "" }, "input"],
    [{ input: [] }, "input"],
    [{ input: "x", encoding_format: "hex" }, "encoding_format"],
    [{ input: "x", dimensions: 0 }, "dimensions"],
    [{ input: "x", model: "local-chat-sim" }, "model"],
  ])("rejects %j with 400 naming `%s`", async (patch, param) => {
    const { openai } = await newWorkspace("1");
    const err = await openai.embeddings.create({ model: MODEL, ...(patch as object) } as never).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error.param).toBe(param);
  });
});
