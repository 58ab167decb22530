// Response objects, their output items and the streamed events carry every field that OpenAI's
// published types require: the required (non-optional) properties of the official SDK's
// interfaces, read from its declaration file, are checked on the raw JSON the gateway sends.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace } from "../helpers";

const MODEL = "local-chat-sim";
type Json = Record<string, unknown>;

/** Required property names of each interface declared in the SDK's responses types. */
function requiredFields(): Map<string, string[]> {
  // The package's compiled module sits beside its declaration file.
  const file = createRequire(import.meta.url).resolve("openai/resources/responses/responses").replace(/\.js$/, ".d.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found = new Map<string, string[]>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const names = node.members.filter((m) => ts.isPropertySignature(m) && !m.questionToken).map((m) => (m.name as ts.Identifier).text);
    found.set(node.name.text, names);
  });
  return found;
}

const REQUIRED = requiredFields();
// `output_text` is computed by the SDKs from the output items (it is not part of the wire object).
const SDK_ONLY = new Set(["output_text"]);

function expectFields(value: unknown, type: string, where: string): void {
  const names = REQUIRED.get(type);
  expect(names, `the SDK declares ${type}`).toBeDefined();
  const missing = names!.filter((n) => !SDK_ONLY.has(n) && !(n in (value as Json)));
  expect(missing, `${where} (${type}) lacks required fields`).toEqual([]);
}

/** The Response and, inside it, its output items, their content parts and its usage. */
function expectResponse(r: Json, where: string): void {
  expectFields(r, "Response", where);
  for (const [i, item] of (r.output as Json[]).entries()) {
    if (item.type === "message") {
      expectFields(item, "ResponseOutputMessage", `${where}.output[${i}]`);
      for (const part of item.content as Json[]) expectFields(part, "ResponseOutputText", `${where}.output[${i}].content`);
      expect(item.content).toEqual((item.content as Json[]).map((p) => ({ ...p, annotations: [], logprobs: [] })));
    } else {
      expectFields(item, "ResponseFunctionToolCall", `${where}.output[${i}]`);
      expect(item.status).toBe("completed");
      expect(item.id).toEqual(expect.any(String));
    }
  }
  if (r.usage) expectFields(r.usage, "ResponseUsage", `${where}.usage`);
}

/** Event type -> the SDK interface that declares it. */
const EVENT_TYPES: Record<string, string> = {
  "response.created": "ResponseCreatedEvent",
  "response.queued": "ResponseQueuedEvent",
  "response.in_progress": "ResponseInProgressEvent",
  "response.completed": "ResponseCompletedEvent",
  "response.incomplete": "ResponseIncompleteEvent",
  "response.failed": "ResponseFailedEvent",
  "response.output_item.added": "ResponseOutputItemAddedEvent",
  "response.output_item.done": "ResponseOutputItemDoneEvent",
  "response.content_part.added": "ResponseContentPartAddedEvent",
  "response.content_part.done": "ResponseContentPartDoneEvent",
  "response.output_text.delta": "ResponseTextDeltaEvent",
  "response.output_text.done": "ResponseTextDoneEvent",
  "response.function_call_arguments.delta": "ResponseFunctionCallArgumentsDeltaEvent",
  "response.function_call_arguments.done": "ResponseFunctionCallArgumentsDoneEvent",
};

async function post(secret: string, body: Json): Promise<Response> {
  return fetch(`${baseUrl()}/v1/responses`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify(body) });
}

function sseEvents(text: string): Json[] {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((f) => JSON.parse(f.slice(f.indexOf("data: ") + 6)) as Json);
}

function expectEvents(events: Json[], where: string): void {
  expect(events.length).toBeGreaterThan(2);
  for (const e of events) {
    const type = EVENT_TYPES[e.type as string];
    expect(type, `event type ${String(e.type)} is one the SDK declares`).toBeDefined();
    expectFields(e, type!, `${where} ${String(e.type)}`);
    if (e.response) expectResponse(e.response as Json, `${where} ${String(e.type)}.response`);
    if (e.part) expectFields(e.part, "ResponseOutputText", `${where} ${String(e.type)}.part`);
    if (e.item && (e.item as Json).type === "message") expectFields(e.item, "ResponseOutputMessage", `${where} ${String(e.type)}.item`);
  }
}

const tools = [{ type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }];

describe("responses: every field OpenAI's types require", () => {
  it("in created, retrieved, tool-calling and incomplete responses", async () => {
    const { secret } = await newWorkspace("1");
    for (const body of [{ input: "Hello" }, { input: "please call lookup", tools }, { input: "say a lot", max_output_tokens: 16 }]) {
      const r = (await (await post(secret, { model: MODEL, ...body })).json()) as Json;
      expectResponse(r, `create ${JSON.stringify(body)}`);
      const again = (await (await fetch(`${baseUrl()}/v1/responses/${String(r.id)}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as Json;
      expectResponse(again, "retrieve");
      expect(again).toEqual(r);
    }
  });

  it("a message item of an incomplete response is incomplete too", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "say a lot", max_output_tokens: 16 });
    expect(r.status).toBe("incomplete");
    expect(r.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  it("in every streamed event, created and replayed", async () => {
    const { secret } = await newWorkspace("1");
    for (const body of [{ input: "Stream this" }, { input: "please call lookup", tools }]) {
      const live = sseEvents(await (await post(secret, { model: MODEL, stream: true, ...body })).text());
      expectEvents(live, "stream");
      const id = String((live[0]!.response as Json).id);
      const replay = sseEvents(await (await fetch(`${baseUrl()}/v1/responses/${id}?stream=true`, { headers: { authorization: `Bearer ${secret}` } })).text());
      expectEvents(replay, "replay");
    }
  });
});
