// The built-in node's trainer on its own: the loss falls on a learnable file, a seed fixes the
// result, a run resumed from a checkpoint ends exactly as an uninterrupted one, the tuned model
// reproduces its training completions and keeps quiet on prompts it learned nothing about.
import { describe, expect, it } from "vitest";
import { readExamples, resolveHyperparameters } from "../../local-node/fine-tune/examples";
import { generate } from "../../local-node/fine-tune/generate";
import { deserialize, loadModel, serialize, type TrainState } from "../../local-node/fine-tune/model";
import { Trainer, type StepMetrics, type TrainInput } from "../../local-node/fine-tune/trainer";
import { encode } from "../../local-node/tokenizer";
import { colourExample, colourFile } from "../fine-tune-examples";

const CONTEXT = 32768;

function input(seed: number, count = 30): TrainInput {
  const training = readExamples(colourFile(count), CONTEXT);
  expect(training.error).toBeNull();
  const validation = readExamples(colourFile(10, 200), CONTEXT, 1);
  return { training: training.examples, validation: validation.examples, hyper: resolveHyperparameters({}, count), seed };
}

function run(trainer: Trainer, until = Infinity): StepMetrics[] {
  const metrics: StepMetrics[] = [];
  while (!trainer.done && trainer.s.step < until) metrics.push(trainer.step());
  return metrics;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("fine-tuning trainer", () => {
  it("lowers the training and validation loss on a learnable file", () => {
    const trainer = new Trainer(input(7));
    const metrics = run(trainer);
    expect(metrics).toHaveLength(trainer.totalSteps);
    expect(trainer.totalSteps).toBe(300); // 30 examples: 10 epochs of batch 1
    const epoch = trainer.stepsPerEpoch;
    const first = mean(metrics.slice(0, epoch).map((m) => m.train_loss));
    const last = mean(metrics.slice(-epoch).map((m) => m.train_loss));
    expect(last).toBeLessThan(first / 5);
    expect(mean(metrics.slice(-epoch).map((m) => m.valid_loss!))).toBeLessThan(mean(metrics.slice(0, epoch).map((m) => m.valid_loss!)));
    expect(metrics.at(-1)!.train_mean_token_accuracy).toBeGreaterThan(0.9);
    expect(trainer.s.trainedTokens).toBe(readExamples(colourFile(30), CONTEXT).tokensPerEpoch * 10);
  });

  it("is deterministic with a seed", () => {
    const a = new Trainer(input(11));
    const b = new Trainer(input(11));
    const c = new Trainer(input(12));
    const ma = run(a);
    expect(run(b)).toEqual(ma);
    expect(serialize(b.s).equals(serialize(a.s))).toBe(true);
    expect(run(c).map((m) => m.train_loss)).not.toEqual(ma.map((m) => m.train_loss));
  });

  it("resumed from a checkpoint, ends exactly as an uninterrupted run", () => {
    const whole = new Trainer(input(5));
    const expected = run(whole);
    const first = new Trainer(input(5));
    const before = run(first, first.stepsPerEpoch * 3);
    expect(first.atEpochEnd).toBe(true);
    const saved = deserialize(serialize(first.s)) as TrainState;
    const resumed = new Trainer(input(5), saved);
    const after = run(resumed);
    expect([...before, ...after]).toEqual(expected);
    expect(serialize(resumed.s).equals(serialize(whole.s))).toBe(true);
    // a pause in the middle of an epoch resumes as well
    const paused = new Trainer(input(5));
    run(paused, paused.stepsPerEpoch * 2 + 7);
    const cont = new Trainer(input(5), deserialize(serialize(paused.s)) as TrainState);
    run(cont);
    expect(serialize(cont.s).equals(serialize(whole.s))).toBe(true);
  });

  it("reproduces its training completions at temperature 0 and falls back on unknown prompts", () => {
    const trainer = new Trainer(input(3));
    run(trainer);
    const model = loadModel(deserialize(serialize(trainer.s)));
    for (let i = 0; i < 30; i++) {
      const ex = colourExample(i);
      const out = generate(model, ex.messages.slice(0, 2), { temperature: 0, limit: 100, seedKey: "k" });
      expect(out?.ids.slice(0, 20)).toEqual(encode(ex.messages[2]!.content).slice(0, 20));
      expect(out?.finished).toBe(true);
    }
    expect(generate(model, [{ role: "user", content: "Tell me a joke about penguins." }], { temperature: 0, limit: 100, seedKey: "k" })).toBeNull();
    expect(generate(model, [{ role: "user", content: "" }], { temperature: 0, limit: 100, seedKey: "k" })).toBeNull();
    // a few common words are not enough to answer from training
    expect(generate(model, [{ role: "user", content: "Write a haiku about the sea." }], { temperature: 0, limit: 100, seedKey: "k" })).toBeNull();
    // a question like the training ones is answered in their manner
    const like = [colourExample(0).messages[0]!, { role: "user", content: "What is the code of the red car number 0, please?" }];
    expect(generate(model, like, { temperature: 0, limit: 100, seedKey: "k" })).not.toBeNull();
  });

  it("names the line and the reason of a broken file", () => {
    const lines = colourFile(12).trim().split("\n");
    lines[3] = JSON.stringify({ messages: [{ role: "user", content: "hi" }, { content: "no role" }] });
    expect(readExamples(lines.join("\n"), CONTEXT).error?.message).toBe("Line 4: message 2 has no role");
    lines[3] = "{not json";
    expect(readExamples(lines.join("\n"), CONTEXT).error?.message).toBe("Line 4: is not valid JSON");
    lines[3] = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    expect(readExamples(lines.join("\n"), CONTEXT).error?.message).toBe("Line 4: has no assistant message");
    lines[3] = JSON.stringify({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "x", weight: 2 }] });
    expect(readExamples(lines.join("\n"), CONTEXT).error?.message).toBe("Line 4: message 2 has weight 2; it must be 0 or 1");
    expect(readExamples(colourFile(3), CONTEXT).error?.message).toMatch(/at least 10/);
    expect(readExamples(colourFile(12), 20).error?.message).toMatch(/^Line 1: has \d+ tokens, more than the model's context length of 20$/);
  });
});
