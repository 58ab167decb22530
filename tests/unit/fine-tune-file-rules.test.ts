// The rules a fine-tuning file is held to (OpenAI's chat format), the line each refusal names, the
// tokens it trains (the formula the node shares), and how "auto" hyperparameters resolve.
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { readTrainingFile } from "../../server/fine-tuning/file-rules";
import { autoHyperparameters, resolveHyperparameters, totalSteps } from "../../server/fine-tuning/hyperparameters";
import { colourExample, colourFile } from "../fine-tune-examples";

const enc = new Tiktoken(o200k);
const tokens = (text: string) => enc.encode(text, [], []).length;

const line = (messages: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ messages, ...extra });
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown, extra: Record<string, unknown> = {}) => ({ role: "assistant", content, ...extra });
const good = line([user("hi"), assistant("hello")]);

/** A file of nine good lines with `bad` as line `at` (1-based). */
function withLine(bad: string, at = 4): string {
  const lines = Array.from({ length: 11 }, () => good);
  lines.splice(at - 1, 0, bad);
  return lines.join("\n");
}

async function firstError(bad: string, at = 4): Promise<string> {
  const report = await readTrainingFile(withLine(bad, at), 100_000);
  expect(report.errors.length, "one error").toBe(1);
  expect(report.errors[0]!.line).toBe(at);
  return report.errors[0]!.message;
}

describe("a fine-tuning file: one chat example a line", () => {
  it("a learnable file passes, with its examples and the tokens of one epoch counted as the node counts them", async () => {
    const report = await readTrainingFile(colourFile(12), 100_000);
    expect(report.errors).toEqual([]);
    expect(report.examples).toBe(12);
    let expected = 0;
    for (let i = 0; i < 12; i++) for (const m of colourExample(i).messages) expected += 3 + tokens(m.content);
    expect(report.tokensPerEpoch).toBe(expected);
  });

  it("counts text parts joined with newlines, and each tool call's name and arguments", async () => {
    const parts = line([user([{ type: "text", text: "a" }, { type: "text", text: "b" }]), assistant("c")]);
    const calls = line([user("weather?"), assistant(null, { tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }), { role: "tool", content: "sunny", tool_call_id: "c1" }, assistant("It is sunny.")]);
    const legacy = line([user("x"), assistant(null, { function_call: { name: "f", arguments: "{}" } }), { role: "function", name: "f", content: "1" }, assistant("one")]);
    const file = [parts, calls, legacy, ...Array.from({ length: 7 }, () => good)].join("\n");
    const report = await readTrainingFile(file, 100_000);
    expect(report.errors).toEqual([]);
    const goodTokens = 3 + tokens("hi") + 3 + tokens("hello");
    const expected =
      3 + tokens("a\nb") + 3 + tokens("c") +
      (3 + tokens("weather?") + 3 + tokens('get_weather{"city":"Paris"}') + 3 + tokens("sunny") + 3 + tokens("It is sunny.")) +
      (3 + tokens("x") + 3 + tokens("f{}") + 3 + tokens("1") + 3 + tokens("one")) +
      7 * goodTokens;
    expect(report.tokensPerEpoch).toBe(expected);
  });

  it("blank lines are skipped; a line that is not JSON is named", async () => {
    expect((await readTrainingFile(`${good}\n\n${colourFile(10)}\n\n`, 100_000)).errors).toEqual([]);
    expect(await firstError("{not json", 7)).toBe("Line 7: is not valid JSON");
  });

  it("each shape rule names the line and what is wrong", async () => {
    expect(await firstError("[1,2]")).toBe("Line 4: is not a JSON object");
    expect(await firstError(JSON.stringify({ prompt: "a", completion: "b" }))).toBe("Line 4: has no messages");
    expect(await firstError(line([]))).toBe("Line 4: messages must be a non-empty array");
    expect(await firstError(line([user("a"), { content: "b" }]))).toBe("Line 4: message 2 has no role");
    expect(await firstError(line([{ role: "robot", content: "a" }, assistant("b")]))).toMatch(/^Line 4: message 1 has an unknown role "robot"/);
    expect(await firstError(line([user("a"), { role: "assistant" }]))).toBe("Line 4: message 2 has no content");
    expect(await firstError(line([user(5), assistant("b")]))).toBe("Line 4: message 1: content must be a string or an array of text parts");
    expect(await firstError(line([user([{ type: "image_url", image_url: { url: "x" } }]), assistant("b")]))).toMatch(/^Line 4: message 1: content part 1 is not a text part/);
    expect(await firstError(line([user("a"), user("b")]))).toBe("Line 4: has no assistant message");
    expect(await firstError(line([user("a"), assistant("b", { weight: 2 })]))).toBe("Line 4: message 2: weight must be 0 or 1");
    expect(await firstError(line([user("a"), { role: "user", content: "b", weight: 1 }, assistant("c")]))).toBe("Line 4: message 2: only an assistant message may have a weight");
    expect(await firstError(line([user("a"), assistant(null, { tool_calls: [{ type: "function", function: { name: "f" } }] })]))).toMatch(/^Line 4: message 2: tool call 1 must be/);
    expect(await firstError(line([user("a"), { role: "user", content: "b", tool_calls: [] }, assistant("c")]))).toBe("Line 4: message 2: only an assistant message may have tool_calls");
    expect(await firstError(line([user("a"), assistant("b")], { tools: [{ type: "function", function: {} }] }))).toMatch(/^Line 4: tool 1 must be/);
    expect(await firstError(line([user("a"), assistant("b")], { functions: "f" }))).toBe("Line 4: functions must be an array");
  });

  it("weights 0 and 1, tools and legacy functions of proper shape pass", async () => {
    const fine = line([user("a"), assistant("b", { weight: 0 }), user("c"), assistant("d", { weight: 1 })], {
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      functions: [{ name: "g" }],
    });
    expect((await readTrainingFile(withLine(fine), 100_000)).errors).toEqual([]);
  });

  it("an example longer than the model's context is refused, naming its tokens", async () => {
    const long = line([user("word ".repeat(50)), assistant("ok")]);
    const report = await readTrainingFile(withLine(long, 2), 40);
    expect(report.errors).toEqual([{ line: 2, message: expect.stringMatching(/^Line 2: the example has \d+ tokens, more than the model's context of 40$/) }]);
  });

  it("fewer than 10 examples is a problem of the whole file (line 0); a validation file may be shorter", async () => {
    const report = await readTrainingFile(colourFile(9), 100_000);
    expect(report.errors).toEqual([{ line: 0, message: "The file has 9 examples; at least 10 are required." }]);
    expect((await readTrainingFile(colourFile(3), 100_000, 1)).errors).toEqual([]);
  });

  it("lists every bad line, in order", async () => {
    const file = [good, "x", good, line([user("a")]), ...Array.from({ length: 10 }, () => good)].join("\n");
    const report = await readTrainingFile(file, 100_000);
    expect(report.errors.map((e) => e.line)).toEqual([2, 4]);
    expect(report.examples).toBe(12);
  });
});

describe("hyperparameters: numbers kept, \"auto\" resolved by the number of examples", () => {
  it("n_epochs = clamp(ceil(1000 / n), 3, 10), batch_size = clamp(ceil(n / 50), 1, 8), learning rate multiplier 1", () => {
    expect(autoHyperparameters(10)).toEqual({ n_epochs: 10, batch_size: 1, learning_rate_multiplier: 1 });
    expect(autoHyperparameters(150)).toEqual({ n_epochs: 7, batch_size: 3, learning_rate_multiplier: 1 });
    expect(autoHyperparameters(1000)).toEqual({ n_epochs: 3, batch_size: 8, learning_rate_multiplier: 1 });
    expect(autoHyperparameters(101)).toEqual({ n_epochs: 10, batch_size: 3, learning_rate_multiplier: 1 });
  });

  it("given numbers are kept and \"auto\" or absent ones resolved", () => {
    expect(resolveHyperparameters({ n_epochs: 2, batch_size: "auto" }, 120)).toEqual({ n_epochs: 2, batch_size: 3, learning_rate_multiplier: 1 });
    expect(resolveHyperparameters({ learning_rate_multiplier: 0.5 }, 20)).toEqual({ n_epochs: 10, batch_size: 1, learning_rate_multiplier: 0.5 });
    expect(resolveHyperparameters(undefined, 400)).toEqual({ n_epochs: 3, batch_size: 8, learning_rate_multiplier: 1 });
  });

  it("total steps: ceil(n / batch size) per epoch, times the epochs", () => {
    expect(totalSteps(100, { n_epochs: 3, batch_size: 8, learning_rate_multiplier: 1 })).toBe(39);
  });
});
