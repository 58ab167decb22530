// What the guardrails' tests share: a model of their own served by a stand-in node that records
// what it is sent, and an outside guard service that answers as it is told.
import { createServer, type Server } from "node:http";
import type OpenAI from "openai";
import { addGuardrail, attachGuardrail } from "../server/guardrails/guardrail-store";
import { db } from "../server/infra/db/client";
import { Channel, notify } from "../server/infra/db/notify";
import { freePort } from "../server/infra/net/free-port";
import { cardToRow } from "../server/routing/catalog/model-row";
import { checkAllNodes } from "../server/routing/nodes/health-check";
import { addNode, removeNode } from "../server/routing/nodes/nodes";
import { chatModelCard } from "./fakes/chat-model-card";
import { startFakeUpstream, type FakeUpstream } from "./fakes/upstream";
import { newWorkspace, until } from "./helpers";

/** An outside guard service: answers what `reply` says (to the parsed body and the path), after `delayMs`; keeps what it was sent. */
export type GuardService = {
  url: string;
  delayMs: number;
  reply: (body: Record<string, unknown>, path: string) => unknown;
  seen: { path: string; body: string; signature: string | undefined }[];
};

export type GuardFixture = { model: string; fake: FakeUpstream; service: GuardService; close: () => Promise<void> };

export async function startGuardFixture(model: string): Promise<GuardFixture> {
  await db.model.create({ data: cardToRow(chatModelCard(model, { input: "1", output: "2" })) });
  const fake = await startFakeUpstream(model);
  const nodeId = (await addNode({ name: `${model}-node`, url: fake.url, city: "Madrid", country: "ES" })).node.id;
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
  const service: GuardService = { url: "", delayMs: 0, reply: () => ({ verdict: "allow" }), seen: [] };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      service.seen.push({ path: req.url ?? "/", body, signature: req.headers["x-gateway-signature"] as string | undefined });
      if (service.delayMs) await new Promise((r) => setTimeout(r, service.delayMs));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(service.reply(JSON.parse(body) as Record<string, unknown>, req.url ?? "/")));
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  service.url = `http://127.0.0.1:${port}`;
  // The gateway learns of the model by notification: wait until it serves it.
  const { openai } = await newWorkspace("1");
  await until(() => openai.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] }).then(() => true, () => false), (ok) => ok, 5000);
  return {
    model,
    fake,
    service,
    close: async () => {
      await removeNode(nodeId).catch(() => undefined);
      await db.model.deleteMany({ where: { id: model } });
      await fake.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A chat call with its raw answer (headers). */
export const askModel = (openai: OpenAI, model: string, content: string, headers: Record<string, string> = {}) =>
  openai.chat.completions.create({ model, messages: [{ role: "user", content }], max_tokens: 50 }, { headers }).withResponse();

/** The call's request-log row once written. */
export async function logRow(requestId: string) {
  const { value } = await until(() => db.requestLog.findFirst({ where: { id: requestId } }), (r) => r !== null, 10_000);
  return value!;
}

/** A workspace with one guardrail attached to it (before its first call: the gateway reads its rules fresh). */
export async function guardedWorkspace(definition: Record<string, unknown>, credits = "5") {
  const ws = await newWorkspace(credits);
  const g = await addGuardrail(ws.workspace.id, definition);
  await attachGuardrail(ws.workspace.id, String(definition.name), {});
  return { ...ws, guardrail: g };
}
