// A workspace's fine-tuned models in the catalog, with the official SDK: registered for one
// workspace (served by the built-in node, which here answers the tuned name with its base chat
// model), listed, retrieved and called by it alone (any other workspace gets 404 everywhere:
// retrieve, chat, embeddings, a route, the list), priced from the base model's fine-tuned prices,
// deleted by its owner only (and asked of the node that trained it), and a node's own `ft:` models
// never imported into the catalog.
import { createServer, type Server } from "node:http";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { freePort } from "../../server/infra/net/free-port";
import { createKey } from "../../server/identity/keys/create-key";
import { formatMoney, money } from "../../server/kernel/money";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkpointModelName, registerTunedModels, tunedModelName } from "../../server/routing/catalog/tuned-models";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { GLOBAL_SCOPE, ZRouteDefinition } from "../../server/routing/routes/route-schema";
import { setRoute } from "../../server/routing/routes/route-store";
import { chatModelCard } from "../fakes/chat-model-card";
import { cli } from "../cli-process";
import { client, expectApiError, newWorkspace, until } from "../helpers";

const BASE = "ftm-base";
const PLAIN_BASE = "ftm-plain-base";
const FT = { input: "0.8", output: "3.2", training: "25" };
const BASE_PRICES = { input: "0.3", output: "1.7" };
const OPERATOR_ROUTE = "ftm-operator-route";
const JOB = "ftjob-ftmtest0abcdef";
const JOB2 = "ftjob-ftmplain0abcdef";

type Standin = { url: string; deleted: string[]; close: () => Promise<void> };

/** A stand-in OpenAI node listing full cards, one of them a fine-tuned model of its own (`ft:`), and a tuned name the gateway knows; it records model deletions. */
async function startListingNode(list: unknown[]): Promise<Standin> {
  const node: Standin = { url: "", deleted: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: list }));
      return;
    }
    const deleted = req.method === "DELETE" && /^\/v1\/models\/(.+)$/.exec(req.url ?? "");
    if (deleted) {
      node.deleted.push(decodeURIComponent(deleted[1]!));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: decodeURIComponent(deleted[1]!), object: "model", deleted: true }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "no", type: "invalid_request_error", code: null, param: null } }));
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  node.url = `http://127.0.0.1:${port}/v1`;
  node.close = () => new Promise((r) => server.close(() => r()));
  return node;
}

let owner: Awaited<ReturnType<typeof newWorkspace>>;
let other: Awaited<ReturnType<typeof newWorkspace>>;
let tuned: string;
let checkpoint: string;
let plainTuned: string;
let standin: Standin;
let standinNodeId: string;
const NODE_FT = "ft:gpt-4o-mini-2024-07-18:some-org:custom:AbC123";

beforeAll(async () => {
  owner = await newWorkspace("5", "Tuning Owners, Inc.");
  other = await newWorkspace("5", "Someone Else");
  const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
  // Two base models the built-in node serves (as its chat model): one with fine-tuned prices, one without.
  const base = cardToRow({ ...chatModelCard(BASE, BASE_PRICES), fine_tunable: true });
  await db.model.create({
    data: { ...base, priceTrainingPer1m: FT.training, priceFtInputPer1m: FT.input, priceFtOutputPer1m: FT.output, nodes: { create: { nodeId: local.id, upstreamModel: "local-chat-sim" } } },
  });
  await db.model.create({ data: { ...cardToRow(chatModelCard(PLAIN_BASE, { input: "0.4", output: "0.9" })), nodes: { create: { nodeId: local.id, upstreamModel: "local-chat-sim" } } } });
  tuned = tunedModelName(BASE, owner.workspace.name, "support", JOB);
  checkpoint = checkpointModelName(tuned, 7);
  plainTuned = tunedModelName(PLAIN_BASE, owner.workspace.name, null, JOB2);
  // The stand-in node trained the checkpoint (a deletion is asked of it); the built-in node serves the rest.
  standin = await startListingNode([
    { ...chatModelCard("ftm-listed"), object: "model" },
    { ...chatModelCard(NODE_FT), object: "model" },
    { id: tuned, object: "model" },
  ]);
  await registerTunedModels({ workspaceId: owner.workspace.id, baseModelId: BASE, jobId: JOB, nodeId: local.id, models: [{ id: tuned, upstreamModel: "local-chat-sim" }] });
  await registerTunedModels({ workspaceId: owner.workspace.id, baseModelId: PLAIN_BASE, jobId: JOB2, nodeId: local.id, models: [{ id: plainTuned, upstreamModel: "local-chat-sim" }] });
  await notify(db, Channel.nodesChanged);
  const seen = await until(async () => (await owner.openai.models.list()).data.some((m) => m.id === tuned), (ok) => ok, 5000);
  expect(seen.value, "the owner sees its tuned model").toBe(true);
});

afterAll(async () => {
  if (standinNodeId) await removeNode(standinNodeId).catch(() => undefined);
  await db.route.deleteMany({ where: { name: { in: [OPERATOR_ROUTE, "ftm-own-route"] } } });
  await db.model.deleteMany({ where: { id: { in: [tuned, checkpoint, plainTuned, checkpointModelName(plainTuned, 3), BASE, PLAIN_BASE, "ftm-listed", NODE_FT] } } });
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.routesChanged, "* *");
  await standin?.close();
});

describe("fine-tuned models belong to their workspace", () => {
  it("is named ft:<base>:<workspace slug>:<suffix>:<job id's first 8>, checkpoints :ckpt-step-N", () => {
    expect(tuned).toBe("ft:ftm-base:tuning-owners-inc:support:ftmtest0");
    expect(checkpoint).toBe(`${tuned}:ckpt-step-7`);
    expect(plainTuned).toBe("ft:ftm-plain-base:tuning-owners-inc::ftmplain");
    expect(tunedModelName("b", "  !!!  ", null, "ftjob-12345678xyz")).toBe("ft:b:ws::12345678");
    expect(tunedModelName("b", "x".repeat(40), "s", "ftjob-abc")).toBe(`ft:b:${"x".repeat(32)}:s:abc`);
  });

  it("its workspace lists and retrieves it, owned by the workspace, from its base, priced at the base's fine-tuned prices", async () => {
    const listed = (await owner.openai.models.list()).data.find((m) => m.id === tuned) as unknown as Record<string, unknown>;
    expect(listed).toMatchObject({ id: tuned, object: "model", owned_by: owner.workspace.id, type: "chat", fine_tunable: false, fine_tuned_from: BASE, ready_now: true });
    const model = (await owner.openai.models.retrieve(tuned)) as unknown as Record<string, any>;
    expect(model).toMatchObject({ id: tuned, owned_by: owner.workspace.id, fine_tuned_from: BASE });
    expect(model.pricing).toMatchObject({ input_per_1m: FT.input, output_per_1m: FT.output, cache_read_per_1m: FT.input, training_per_1m: "0", fine_tuned_input_per_1m: "0", fine_tuned_output_per_1m: "0" });
    // A base without fine-tuned prices gives its tuned models its own.
    const plain = (await owner.openai.models.retrieve(plainTuned)) as unknown as Record<string, any>;
    expect(plain.pricing).toMatchObject({ input_per_1m: "0.4", output_per_1m: "0.9" });
    // The base model's card shows what tuning it costs.
    const base = (await owner.openai.models.retrieve(BASE)) as unknown as Record<string, any>;
    expect(base).toMatchObject({ fine_tunable: true, fine_tuned_from: null, owned_by: "tests" });
    expect(base.pricing).toMatchObject({ training_per_1m: FT.training, fine_tuned_input_per_1m: FT.input, fine_tuned_output_per_1m: FT.output, input_per_1m: BASE_PRICES.input });
  });

  it("its workspace calls it, billed at the tuned prices", async () => {
    const { data, response } = await owner.openai.chat.completions.create({ model: tuned, messages: [{ role: "user", content: "hello tuned" }], max_tokens: 16 }).withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe(tuned);
    expect(data.choices[0]!.message.content).toEqual(expect.any(String));
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: response.headers.get("x-request-id")! } });
    expect(event).toMatchObject({ workspaceId: owner.workspace.id, modelId: tuned });
    const expected = money(FT.input).times(data.usage!.prompt_tokens).plus(money(FT.output).times(data.usage!.completion_tokens)).dividedBy(1_000_000);
    expect(formatMoney(event.cost)).toBe(formatMoney(expected));
  });

  it("another workspace gets 404 model_not_found, as for an unknown id: retrieve, chat, embeddings, and it is not listed", async () => {
    const unknown = `${tuned}x`;
    const unknownErr = await expectApiError(other.openai.models.retrieve(unknown), 404, "model", "model_not_found");
    const err = await expectApiError(other.openai.models.retrieve(tuned), 404, "model", "model_not_found");
    expect(err.message).toBe(unknownErr.message.replace(unknown, tuned));
    await expectApiError(other.openai.chat.completions.create({ model: tuned, messages: [{ role: "user", content: "hi" }] }), 404, "model", "model_not_found");
    await expectApiError(other.openai.chat.completions.create({ model: checkpoint, messages: [{ role: "user", content: "hi" }] }), 404, "model", "model_not_found");
    await expectApiError(other.openai.embeddings.create({ model: tuned, input: "hi" }), 404, "model", "model_not_found");
    await expectApiError(other.openai.responses.create({ model: tuned, input: "hi" }), 404, "model", "model_not_found");
    // Its owner is told the model is not an embedding model: it exists for it.
    const misuse = await owner.openai.embeddings.create({ model: tuned, input: "hi" }).catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect((misuse as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    const ids = (await other.openai.models.list()).data.map((m) => m.id);
    expect(ids).not.toContain(tuned);
    expect(ids).not.toContain(plainTuned);
    expect(ids.some((id) => id.startsWith("ft:"))).toBe(false);
  });

  it("a route reaches it only for its workspace: another cannot name it in a route, and an operator's route naming it serves only the owner", async () => {
    await expect(setRoute(other.workspace.id, { name: "ftm-stolen", strategy: "fallback", targets: [{ model: tuned }] })).rejects.toMatchObject({ status: 400, code: "model_not_found" });
    await expect(setRoute(null, { name: "ftm-global", strategy: "fallback", targets: [{ model: tuned }] })).rejects.toMatchObject({ status: 400, code: "model_not_found" });
    await setRoute(owner.workspace.id, { name: "ftm-own-route", strategy: "fallback", targets: [{ model: tuned }] });
    // An operator's route written when it could still name the model (stored directly: the route's check would refuse it now).
    await db.route.create({ data: { scope: GLOBAL_SCOPE, name: OPERATOR_ROUTE, definition: ZRouteDefinition.parse({ name: OPERATOR_ROUTE, strategy: "fallback", targets: [{ model: tuned }] }) } });
    await notify(db, Channel.routesChanged, `${GLOBAL_SCOPE} ${OPERATOR_ROUTE}`);
    const ask = (openai: OpenAI, model: string) => openai.chat.completions.create({ model, messages: [{ role: "user", content: "via a route" }], max_tokens: 8 });
    const served = await until(() => ask(owner.openai, OPERATOR_ROUTE).catch((e: unknown) => e), (r) => (r as { object?: string }).object === "chat.completion", 5000);
    expect((served.value as { model: string }).model).toBe(tuned);
    expect((await ask(owner.openai, "ftm-own-route")).model).toBe(tuned);
    await expectApiError(ask(other.openai, OPERATOR_ROUTE), 404, "model", "model_not_found");
    await expectApiError(ask(other.openai, "ftm-own-route"), 404, "model", "model_not_found");
    expect((await other.openai.models.list()).data.map((m) => m.id)).not.toContain(OPERATOR_ROUTE);
    expect((await owner.openai.models.list()).data.map((m) => m.id)).toEqual(expect.arrayContaining([OPERATOR_ROUTE, "ftm-own-route"]));
    await expectApiError(other.openai.models.retrieve(OPERATOR_ROUTE), 404, "model", "model_not_found");
  });

  it("a node's own fine-tuned models are never imported nor linked; the gateway's tuned names are not linked from a list", async () => {
    const added = await addNode({ name: "ftm-standin", url: standin.url, city: "Lyon", country: "FR" });
    standinNodeId = added.node.id;
    expect(added.importedModels).toContain("ftm-listed");
    expect(added.importedModels).not.toContain(NODE_FT);
    expect(await db.model.findUnique({ where: { id: NODE_FT } })).toBeNull();
    expect(added.node.models.map((m) => m.model)).not.toContain(tuned);
    expect(added.node.models.map((m) => m.model)).toContain("ftm-listed");
  });

  it("DELETE /v1/models/{id}: another workspace 404, a base model 403, the owner deletes it (and the node that trained it is asked to)", async () => {
    await registerTunedModels({ workspaceId: owner.workspace.id, baseModelId: BASE, jobId: JOB, nodeId: standinNodeId, models: [{ id: checkpoint, upstreamModel: "node-ckpt-7", checkpointStep: 7 }] });
    // Idempotent: the same registration again changes nothing.
    await registerTunedModels({ workspaceId: owner.workspace.id, baseModelId: BASE, jobId: JOB, nodeId: standinNodeId, models: [{ id: checkpoint, upstreamModel: "node-ckpt-7", checkpointStep: 7 }] });
    expect(await db.nodeModel.count({ where: { modelId: checkpoint } })).toBe(1);
    await expectApiError(other.openai.models.delete(tuned), 404, "model", "model_not_found");
    await expectApiError(owner.openai.models.delete(BASE), 403, null, "permission_denied");
    // A restricted key needs the fine_tuning group.
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: owner.workspace.id, name: "models only", permissions: ["models"] }));
    await expectApiError(client(secret).models.delete(tuned), 403, null, "insufficient_permissions");

    expect(await owner.openai.models.delete(checkpoint)).toEqual({ id: checkpoint, object: "model", deleted: true });
    await until(async () => standin.deleted.length, (n) => n > 0, 3000);
    expect(standin.deleted).toEqual(["node-ckpt-7"]);

    expect(await owner.openai.models.delete(tuned)).toEqual({ id: tuned, object: "model", deleted: true });
    expect(await db.model.findUnique({ where: { id: tuned } })).toBeNull();
    expect(await db.nodeModel.count({ where: { modelId: tuned } })).toBe(0);
    const gone = await until(() => owner.openai.models.retrieve(tuned).catch((e: unknown) => e), (r) => (r as { status?: number }).status === 404, 3000);
    expect((gone.value as { status: number }).status).toBe(404);
    await expectApiError(owner.openai.chat.completions.create({ model: tuned, messages: [{ role: "user", content: "hi" }] }), 404, "model", "model_not_found");
    await expectApiError(owner.openai.models.delete(tuned), 404, "model", "model_not_found");
    const audit = await db.auditEvent.findFirst({ where: { workspaceId: owner.workspace.id, action: "model.delete", targetId: tuned } });
    expect(audit).not.toBeNull();
  });

  it("an operator sets the fine-tuning prices (CLI, audited), alone on a priced model; models tuned afterwards are priced at them", async () => {
    const set = await cli("model", "price", PLAIN_BASE, "--training-per-1m", "12", "--ft-input-per-1m", "0.5", "--ft-output-per-1m", "2", "--json");
    expect(set.code, set.stderr).toBe(0);
    const { model } = JSON.parse(set.stdout) as { model: { pricing: Record<string, string> } };
    expect(model.pricing).toMatchObject({ training_per_1m: "12", fine_tuned_input_per_1m: "0.5", fine_tuned_output_per_1m: "2", input_per_1m: "0.4", output_per_1m: "0.9" });
    const audit = await db.auditEvent.findFirst({ where: { action: "model.price", targetId: PLAIN_BASE }, orderBy: { createdAt: "desc" } });
    expect(audit?.changes).toMatchObject({ priceTrainingPer1m: { from: "0", to: "12" }, priceFtInputPer1m: { from: "0", to: "0.5" }, priceFtOutputPer1m: { from: "0", to: "2" } });
    const half = await cli("model", "price", PLAIN_BASE, "--input", "1", "--training-per-1m", "3");
    expect(half.code).not.toBe(0);
    expect((await db.model.findUniqueOrThrow({ where: { id: PLAIN_BASE } })).priceTrainingPer1m.toString()).toBe("12");

    const local = await db.node.findUniqueOrThrow({ where: { name: "local" } });
    const later = checkpointModelName(plainTuned, 3);
    await registerTunedModels({ workspaceId: owner.workspace.id, baseModelId: PLAIN_BASE, jobId: JOB2, nodeId: local.id, models: [{ id: later, upstreamModel: "local-chat-sim", checkpointStep: 3 }] });
    const seen = await until(() => owner.openai.models.retrieve(later).catch(() => null), (m) => m !== null, 5000);
    expect((seen.value as unknown as { pricing: Record<string, string> }).pricing).toMatchObject({ input_per_1m: "0.5", output_per_1m: "2" });
  });
});
