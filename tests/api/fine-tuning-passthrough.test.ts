// Fine-tuning passed through to an OpenAI-format node (a stand-in here): the gateway uploads the
// workspace's training file to the node, creates one job there, mirrors its status, events and
// checkpoints under the gateway's names, copies its metrics file, registers the tuned model (and
// its checkpoints) for the workspace alone, and charges the tokens the node trained, exactly.
import { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyMirror } from "../../server/fine-tuning/mirror-history";
import type { NodeEvent, NodeFineTuning } from "../../server/fine-tuning/node-client";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { startFakeFineTuningNode, type FakeFineTuningNode } from "../fakes/fine-tuning-upstream";
import { expectApiError, newWorkspace, until } from "../helpers";
import { balanceOf } from "../helpers-media";
import { refreshRouting } from "../helpers-nodes";

const MODEL = "test-tunable-chat";
const PRICES = { training: "3", input: "0.3", output: "1.7", ftInput: "0.5", ftOutput: "2" };
const CREDITS = "10";

let node: FakeFineTuningNode;
let nodeId: string;

/** A training file of `n` short chat examples. */
function trainingFile(n: number): string {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ messages: [{ role: "system", content: "You answer tersely." }, { role: "user", content: `What is item ${i}?` }, { role: "assistant", content: `Item ${i} is number ${i * 7}.` }] }),
  ).join("\n");
}

beforeAll(async () => {
  await db.model.create({
    data: {
      ...(cardToRow(chatModelCard(MODEL, { input: PRICES.input, output: PRICES.output })) as object),
      fineTunable: true,
      priceTrainingPer1m: PRICES.training,
      priceFtInputPer1m: PRICES.ftInput,
      priceFtOutputPer1m: PRICES.ftOutput,
    } as never,
  });
  node = await startFakeFineTuningNode(MODEL);
  nodeId = (await addNode({ name: "fine-tuning-stand-in", url: node.url, city: "Lyon", country: "FR" })).node.id;
  await refreshRouting();
});

afterAll(async () => {
  await removeNode(nodeId).catch(() => undefined);
  await db.model.deleteMany({ where: { OR: [{ id: MODEL }, { baseModelId: MODEL }, { id: node.ownTunedModel }] } });
  await node.close();
});

describe("fine-tuning passed through to an OpenAI-format node", () => {
  it("the node's own tuned model is not imported into the catalog", async () => {
    expect(await db.model.findUnique({ where: { id: node.ownTunedModel } })).toBeNull();
    expect(await db.nodeModel.findMany({ where: { nodeId }, select: { modelId: true } })).toEqual([{ modelId: MODEL }]);
  });

  it("uploads the file, creates one node job, mirrors it, registers the model for the workspace only, and charges exactly", async () => {
    const { workspace, openai } = await newWorkspace(CREDITS, "Pass Through Co");
    const other = await newWorkspace(CREDITS, "Someone Else");
    const text = trainingFile(12);
    const file = await openai.files.create({ file: await toFile(Buffer.from(text), "train.jsonl"), purpose: "fine-tune" });
    node.holdAtStep = 4; // training stops before step 4 (after the first epoch's checkpoint) until released
    const created = await openai.fineTuning.jobs.create({
      model: MODEL,
      training_file: file.id,
      suffix: "pt",
      seed: 42,
      method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2 } } },
    });
    expect(created.status).toBe("validating_files");
    const name = `ft:${MODEL}:pass-through-co:pt:${created.id.slice("ftjob-".length, "ftjob-".length + 8)}`;

    // Running on the node: status, trained tokens and the first epoch's checkpoint mirrored.
    const running = await until(
      () => openai.fineTuning.jobs.retrieve(created.id),
      (j) => j.status === "running" && (j.trained_tokens ?? 0) > 0,
      60_000,
    );
    const seen = async () => JSON.stringify({ job: running.value, events: (await openai.fineTuning.jobs.listEvents(created.id, { limit: 100 })).data.map((e) => e.message), onNode: node.jobs.map((j) => [j.status, j.step]) });
    expect(running.value.status, await seen()).toBe("running");
    const ckpts = await until(
      () => openai.fineTuning.jobs.checkpoints.list(created.id),
      (p) => p.data.length === 1,
      10_000,
    );
    expect(ckpts.value.data.map((c) => [c.step_number, c.fine_tuned_model_checkpoint])).toEqual([[3, `${name}:ckpt-step-3`]]);
    expect(node.jobs).toHaveLength(1);
    const nodeJob = node.jobs[0]!;
    expect(node.files.get(String(nodeJob.request.training_file))?.content.toString()).toBe(text);
    expect(nodeJob.request).toMatchObject({ model: MODEL, suffix: "pt", seed: 42, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2 } } } });

    node.holdAtStep = null;
    const done = await until(
      () => openai.fineTuning.jobs.retrieve(created.id),
      (j) => j.status === "succeeded",
      30_000,
    );
    const job = done.value;
    expect(job.status, JSON.stringify(job)).toBe("succeeded");
    expect(job.fine_tuned_model).toBe(name);
    expect(node.jobs).toHaveLength(1);
    expect(node.jobRequests).toHaveLength(1);
    expect(job.trained_tokens).toBe(nodeJob.tokensPerEpoch * 2);

    // Events: the node's metrics in order, named in the gateway's terms (never the node's ids).
    const events = (await openai.fineTuning.jobs.listEvents(created.id, { limit: 100 })).data.reverse();
    const steps = events.filter((e) => e.type === "metrics").map((e) => (e.data as { step: number }).step);
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]);
    const messages = events.map((e) => e.message);
    expect(messages.join("\n")).not.toContain(nodeJob.id);
    expect(messages.join("\n")).not.toContain(nodeJob.fineTunedModel!);
    expect(messages).toContain(`New fine-tuned model created: ${name}`);
    expect(messages.filter((m) => m === "The job has successfully completed")).toHaveLength(1);
    const checkpoints = (await openai.fineTuning.jobs.checkpoints.list(created.id)).data;
    expect(checkpoints.map((c) => c.fine_tuned_model_checkpoint).sort()).toEqual([`${name}:ckpt-step-3`, `${name}:ckpt-step-6`]);

    // The node's metrics file, copied into the workspace's files.
    expect(job.result_files).toHaveLength(1);
    const csv = await (await openai.files.content(job.result_files[0]!)).text();
    expect(csv).toBe(node.files.get(nodeJob.resultFiles[0]!)!.content.toString());
    expect(csv.split("\n")[0]).toBe("step,train_loss,train_accuracy,valid_loss,valid_mean_token_accuracy");

    // The model (and each checkpoint) is the workspace's: listed and answering for it, 404 elsewhere.
    const listed = (await openai.models.list()).data.map((m) => m.id);
    expect(listed).toEqual(expect.arrayContaining([name, `${name}:ckpt-step-3`, `${name}:ckpt-step-6`]));
    expect((await other.openai.models.list()).data.map((m) => m.id)).not.toContain(name);
    await expectApiError(other.openai.models.retrieve(name), 404, "model", "model_not_found");
    await expectApiError(other.openai.chat.completions.create({ model: name, messages: [{ role: "user", content: "hi" }] }), 404, "model", "model_not_found");
    const answer = await openai.chat.completions.create({ model: name, messages: [{ role: "user", content: "What is item 3?" }] });
    expect(answer.choices[0]!.message.content).toBe(node.tunedAnswer);
    expect(node.chatBodies.at(-1)!.model).toBe(nodeJob.fineTunedModel);
    const atCheckpoint = await openai.chat.completions.create({ model: `${name}:ckpt-step-3`, messages: [{ role: "user", content: "What is item 3?" }] });
    expect(atCheckpoint.choices[0]!.message.content).toBe(node.tunedAnswer);
    expect(node.chatBodies.at(-1)!.model).toBe(`${nodeJob.fineTunedModel}:ckpt-step-3`);

    // Money: the tokens the node trained at the training price, once; the two calls at the tuned prices.
    const trainingCharge = money(PRICES.training).times(job.trained_tokens!).dividedBy(1_000_000);
    const usage = await db.usageEvent.findUniqueOrThrow({ where: { id: created.id } });
    expect(usage).toMatchObject({ workspaceId: workspace.id, modelId: MODEL, endpoint: "/v1/fine_tuning/jobs", inputTokens: job.trained_tokens });
    expect(formatMoney(usage.cost.toString())).toBe(formatMoney(trainingCharge));
    const callCost = money(PRICES.ftInput).times(11).plus(money(PRICES.ftOutput).times(7)).dividedBy(1_000_000);
    const expected = money(CREDITS).minus(trainingCharge).minus(callCost.times(2));
    await until(() => balanceOf(workspace.id), (b) => b === formatMoney(expected), 10_000);
    expect(await balanceOf(workspace.id)).toBe(formatMoney(expected));
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id, endpoint: "/v1/fine_tuning/jobs" } })).toBe(1);
  }, 120_000);

  it("a cancel that reaches the node just after its job ended is a 409, and the job is recorded as it ended on the node", async () => {
    const { openai } = await newWorkspace(CREDITS, "Late Cancel Co");
    const file = await openai.files.create({ file: await toFile(Buffer.from(trainingFile(12)), "train.jsonl"), purpose: "fine-tune" });
    node.holdAtStep = 4;
    try {
      const created = await openai.fineTuning.jobs.create({ model: MODEL, training_file: file.id, suffix: "late", method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2 } } } });
      await until(
        () => openai.fineTuning.jobs.retrieve(created.id),
        (j) => j.status === "running" && (j.trained_tokens ?? 0) > 0,
        60_000,
      );
      node.endBeforeCancel = true;
      await expectApiError(openai.fineTuning.jobs.cancel(created.id), 409, "fine_tuning_job_id", "job_not_cancellable");
      node.endBeforeCancel = false;
      const done = await until(
        () => openai.fineTuning.jobs.retrieve(created.id),
        (j) => j.status === "succeeded",
        30_000,
      );
      expect(done.value.status, JSON.stringify(done.value)).toBe("succeeded");
      expect(done.value.fine_tuned_model).toBe(`ft:${MODEL}:late-cancel-co:late:${created.id.slice("ftjob-".length, "ftjob-".length + 8)}`);
      const nodeJob = node.jobs.at(-1)!;
      expect(done.value.trained_tokens).toBe(nodeJob.tokensPerEpoch * 2);
      const events = (await openai.fineTuning.jobs.listEvents(created.id, { limit: 100 })).data.map((e) => e.message);
      expect(events).not.toContain("Fine-tuning job cancelled");
    } finally {
      node.endBeforeCancel = false;
      node.holdAtStep = null;
    }
  }, 120_000);

  it("a node's events are copied into a job that runs, never into one that has ended (its end stays its newest event)", async () => {
    const { openai } = await newWorkspace(CREDITS, "Ended History Co");
    const file = await openai.files.create({ file: await toFile(Buffer.from(trainingFile(12)), "train.jsonl"), purpose: "fine-tune" });
    /** A node whose job lists one event of its own (what the job's worker would copy next). */
    const nodeWith = (event: NodeEvent) =>
      ({
        listEvents: async () => ({ data: [event], hasMore: false }),
        listCheckpoints: async () => ({ data: [], hasMore: false }),
      }) as unknown as NodeFineTuning;
    const copyInto = async (jobId: string, message: string) => {
      const mirror = await historyMirror({ id: jobId, nodeJobId: "ftjob-node" }, nodeWith({ id: `ev-${jobId}`, createdAt: Math.floor(Date.now() / 1000), level: "info", message, type: "message", data: null }), {
        gatewayModel: "unused",
        renames: () => [],
      });
      await mirror.sync();
    };
    const messages = async (jobId: string) => (await openai.fineTuning.jobs.listEvents(jobId, { limit: 100 })).data.map((e) => e.message);

    node.holdAtStep = 2;
    try {
      // Running: copied.
      const running = await openai.fineTuning.jobs.create({ model: MODEL, training_file: file.id, method: { type: "supervised", supervised: { hyperparameters: { n_epochs: 2 } } } });
      await until(() => openai.fineTuning.jobs.retrieve(running.id), (j) => j.status === "running", 60_000);
      await copyInto(running.id, "A node event while it runs");
      expect(await messages(running.id)).toContain("A node event while it runs");
      await openai.fineTuning.jobs.cancel(running.id);
      // The job's worker has cancelled it on the node before the test goes on: otherwise it would
      // still be at it when the stand-in closes, retrying the node for FINE_TUNE_NODE_DOWN_SECONDS
      // and holding one of the test stack's few fine-tuning workers from other files' jobs.
      expect((await until(() => Promise.resolve(node.jobs.at(-1)!.status), (status) => status === "cancelled", 30_000)).value).toBe("cancelled");

      // Ended (cancelled): not copied, and the end is the newest event.
      const ended = await openai.fineTuning.jobs.create({ model: MODEL, training_file: file.id });
      expect((await openai.fineTuning.jobs.cancel(ended.id)).status).toBe("cancelled");
      await copyInto(ended.id, "A node event after the end");
      const after = await messages(ended.id);
      expect(after).not.toContain("A node event after the end");
      expect(after[0]).toBe("Fine-tuning job cancelled");
    } finally {
      node.holdAtStep = null;
    }
  }, 120_000);
});
