// The conversations API, and responses that read and extend a conversation, with the official SDK.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { newWorkspace, raw, until } from "../helpers";

const MODEL = "local-chat-sim";

type Listed = { id: string; type: string; role?: string; content?: { type: string; text?: string }[] };

async function errorOf(call: Promise<unknown>): Promise<{ status: number; param: string | null; code: string }> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  const e = err as InstanceType<typeof OpenAI.APIError> & { error: { param: string | null; code: string } };
  return { status: e.status!, param: e.error.param, code: e.error.code };
}

async function allItems(openai: OpenAI, id: string, order: "asc" | "desc" = "asc"): Promise<Listed[]> {
  const out: Listed[] = [];
  for await (const item of openai.conversations.items.list(id, { order, limit: 100 })) out.push(item as Listed);
  return out;
}

const roles = (items: Listed[]) => items.filter((i) => i.type === "message").map((i) => i.role);

describe("conversations API", () => {
  it("creates a conversation with items and metadata, retrieves, updates and deletes it (then 404)", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({
      metadata: { topic: "birds" },
      items: [
        { type: "message", role: "system", content: "You are terse." },
        { role: "user", content: [{ type: "input_text", text: "hello" }] },
      ],
    });
    expect(c).toEqual({ id: expect.stringMatching(/^conv_/), object: "conversation", created_at: expect.any(Number), metadata: { topic: "birds" } });
    expect(await openai.conversations.retrieve(c.id)).toEqual(c);
    const items = await allItems(openai, c.id);
    expect(items).toEqual([
      { id: expect.stringMatching(/^msg_/), type: "message", role: "system", status: "completed", content: [{ type: "input_text", text: "You are terse." }] },
      { id: expect.stringMatching(/^msg_/), type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "hello" }] },
    ]);

    // the metadata is replaced as a whole
    expect(await openai.conversations.update(c.id, { metadata: { topic: "fish", lang: "en" } })).toEqual({ ...c, metadata: { topic: "fish", lang: "en" } });
    expect((await openai.conversations.retrieve(c.id)).metadata).toEqual({ topic: "fish", lang: "en" });

    expect(await openai.conversations.delete(c.id)).toEqual({ id: c.id, object: "conversation.deleted", deleted: true });
    expect(await errorOf(openai.conversations.retrieve(c.id))).toMatchObject({ status: 404, param: "conversation_id", code: "conversation_not_found" });
    expect((await errorOf(openai.conversations.delete(c.id))).status).toBe(404);
    expect(await db.conversationItem.count({ where: { conversationId: c.id } })).toBe(0);
  });

  it("an empty body creates an empty conversation", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({});
    expect(c.metadata).toEqual({});
    const page = await openai.conversations.items.list(c.id);
    expect(page.data).toEqual([]);
    expect(page.has_more).toBe(false);
  });

  it("adds items (answering those added), retrieves and deletes one (answering the conversation)", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({ items: [{ role: "user", content: "first" }] });
    const added = await openai.conversations.items.create(c.id, {
      items: [
        { role: "assistant", content: "an answer" },
        { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q":"x"}' },
        { type: "function_call_output", call_id: "call_1", output: "42" },
        { type: "reasoning", summary: [{ type: "summary_text", text: "thought about it" }] } as never,
      ],
    });
    expect(added.object).toBe("list");
    expect(added.data.map((i) => i.type)).toEqual(["message", "function_call", "function_call_output", "reasoning"]);
    expect(added.data[0]).toMatchObject({ role: "assistant", content: [{ type: "output_text", text: "an answer", annotations: [] }] });
    expect(added.first_id).toBe(added.data[0]!.id);
    expect(added.last_id).toBe(added.data[3]!.id);
    expect(added.has_more).toBe(false);

    const call = added.data[1]!.id!;
    expect(await openai.conversations.items.retrieve(call, { conversation_id: c.id })).toEqual({
      id: call,
      type: "function_call",
      call_id: "call_1",
      name: "lookup",
      arguments: '{"q":"x"}',
      status: "completed",
    });
    expect(await openai.conversations.items.delete(call, { conversation_id: c.id })).toEqual(await openai.conversations.retrieve(c.id));
    expect(await errorOf(openai.conversations.items.retrieve(call, { conversation_id: c.id }))).toMatchObject({ status: 404, param: "item_id" });
    expect((await errorOf(openai.conversations.items.delete(call, { conversation_id: c.id }))).status).toBe(404);
    expect((await allItems(openai, c.id)).map((i) => i.type)).toEqual(["message", "message", "function_call_output", "reasoning"]);

    // an id the conversation already holds is refused, naming the item
    const first = (await allItems(openai, c.id))[0]!;
    expect(await errorOf(openai.conversations.items.create(c.id, { items: [{ role: "user", content: "ok" }, { id: first.id, type: "message", role: "user", content: "dup" } as never] }))).toMatchObject({
      status: 400,
      param: "items[1].id",
    });
  });

  it("lists items paginated in both orders (newest first by default)", async () => {
    const { openai, secret } = await newWorkspace("1");
    const texts = ["one", "two", "three", "four", "five"];
    const c = await openai.conversations.create({ items: texts.map((t) => ({ role: "user" as const, content: t })) });
    const text = (i: Listed) => i.content![0]!.text;

    const page1 = await openai.conversations.items.list(c.id, { limit: 2 });
    expect(page1.data.map((i) => text(i as Listed))).toEqual(["five", "four"]);
    expect(page1.has_more).toBe(true);
    expect(page1.last_id).toBe(page1.data[1]!.id);
    const page2 = await openai.conversations.items.list(c.id, { limit: 2, after: page1.last_id });
    expect(page2.data.map((i) => text(i as Listed))).toEqual(["three", "two"]);
    const page3 = await openai.conversations.items.list(c.id, { limit: 2, after: page2.last_id });
    expect(page3.data.map((i) => text(i as Listed))).toEqual(["one"]);
    expect(page3.has_more).toBe(false);
    // the list object as sent, with its cursors
    const sent = (await (await raw(`/v1/conversations/${c.id}/items?limit=2&order=asc`, { key: secret })).json()) as { object: string; data: Listed[]; first_id: string; last_id: string; has_more: boolean };
    expect(sent).toMatchObject({ object: "list", first_id: sent.data[0]!.id, last_id: sent.data[1]!.id, has_more: true });

    // the SDK follows the cursor itself
    const asc: string[] = [];
    for await (const i of openai.conversations.items.list(c.id, { limit: 2, order: "asc" })) asc.push(text(i as Listed)!);
    expect(asc).toEqual(texts);
    const desc: string[] = [];
    for await (const i of openai.conversations.items.list(c.id, { limit: 3, order: "desc" })) desc.push(text(i as Listed)!);
    expect(desc).toEqual([...texts].reverse());

    expect(await errorOf(openai.conversations.items.list(c.id, { after: "msg_unknown" }))).toMatchObject({ status: 400, param: "after" });
    expect(await errorOf(openai.conversations.items.list(c.id, { limit: 0 }))).toMatchObject({ status: 400, param: "limit" });
  });

  it("bad inputs are 400 naming the param", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({});
    const cases: [() => Promise<unknown>, string][] = [
      [() => openai.conversations.create({ metadata: { n: 1 } } as never), "metadata.n"],
      [() => openai.conversations.create({ metadata: { k: "x".repeat(600) } }), "metadata.k"],
      [() => openai.conversations.create({ items: Array.from({ length: 21 }, () => ({ role: "user" as const, content: "x" })) }), "items"],
      [() => openai.conversations.create({ items: [{ role: "user", content: "x" }, { type: "web_search_call" } as never] }), "items[1].type"],
      [() => openai.conversations.create({ items: [{ role: "robot", content: "x" } as never] }), "items[0].role"],
      [() => openai.conversations.update(c.id, { metadata: { n: true } } as never), "metadata.n"],
      [() => openai.conversations.items.create(c.id, { items: [] }), "items"],
      [() => openai.conversations.items.create(c.id, { items: [{ type: "bogus" } as never] }), "items[0].type"],
      [() => openai.conversations.items.create(c.id, { items: Array.from({ length: 21 }, () => ({ role: "user" as const, content: "x" })) }), "items"],
    ];
    for (const [call, param] of cases) expect(await errorOf(call()), param).toMatchObject({ status: 400, param });
    expect(await db.conversationItem.count({ where: { conversationId: c.id } })).toBe(0);
  });

  it("unknown ids are 404", async () => {
    const { openai } = await newWorkspace("1");
    for (const call of [
      () => openai.conversations.retrieve("conv_unknown"),
      () => openai.conversations.update("conv_unknown", { metadata: {} }),
      () => openai.conversations.delete("conv_unknown"),
      () => openai.conversations.items.list("conv_unknown"),
      () => openai.conversations.items.create("conv_unknown", { items: [{ role: "user", content: "x" }] }),
      () => openai.conversations.items.retrieve("msg_x", { conversation_id: "conv_unknown" }),
      () => openai.conversations.items.delete("msg_x", { conversation_id: "conv_unknown" }),
    ]) {
      expect(await errorOf(call())).toMatchObject({ status: 404, code: "conversation_not_found", param: "conversation_id" });
    }
  });

  it("another workspace's conversation is 404 on every path, responses.create included, and stays untouched", async () => {
    const a = await newWorkspace("1", "A");
    const b = await newWorkspace("1", "B");
    const c = await a.openai.conversations.create({ metadata: { owner: "a" }, items: [{ role: "user", content: "secret" }] });
    const [item] = await allItems(a.openai, c.id);
    for (const call of [
      () => b.openai.conversations.retrieve(c.id),
      () => b.openai.conversations.update(c.id, { metadata: { owner: "b" } }),
      () => b.openai.conversations.delete(c.id),
      () => b.openai.conversations.items.list(c.id),
      () => b.openai.conversations.items.create(c.id, { items: [{ role: "user", content: "injected" }] }),
      () => b.openai.conversations.items.retrieve(item!.id, { conversation_id: c.id }),
      () => b.openai.conversations.items.delete(item!.id, { conversation_id: c.id }),
      () => b.openai.responses.create({ model: MODEL, input: "x", conversation: c.id }),
    ]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect(await db.usageEvent.count({ where: { workspaceId: b.workspace.id } })).toBe(0);
    expect(await a.openai.conversations.retrieve(c.id)).toEqual(c);
    expect(await allItems(a.openai, c.id)).toEqual([item]);
  });
});

describe("responses in a conversation", () => {
  it("each turn sees the earlier ones, and the conversation holds user, assistant, user, assistant", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({});
    const first = await openai.responses.create({ model: MODEL, input: "Remember the word ostrich", conversation: c.id });
    const second = await openai.responses.create({ model: MODEL, input: "What was the word?", conversation: { id: c.id } });
    expect(first.status).toBe("completed");
    expect((first as unknown as { conversation: unknown }).conversation).toEqual({ id: c.id });
    expect((await openai.responses.retrieve(second.id) as unknown as { conversation: unknown }).conversation).toEqual({ id: c.id });
    // more input tokens: the first turn's input and output were sent again
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens + first.usage!.output_tokens);

    const items = await allItems(openai, c.id);
    expect(roles(items)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(items[0]!.content).toEqual([{ type: "input_text", text: "Remember the word ostrich" }]);
    expect(items[1]!.id).toBe(first.output[0]!.id);
    expect(items[3]!.id).toBe(second.output[0]!.id);
    expect((items[3]!.content![0] as { text: string }).text).toBe(second.output_text);
    // newest first by default
    expect((await openai.conversations.items.list(c.id)).data[0]!.id).toBe(second.output[0]!.id);
  });

  it("items added through the conversations API are context too, and a streamed response appends its turn", async () => {
    const { openai } = await newWorkspace("1");
    const bare = await openai.responses.create({ model: MODEL, input: "And now?" });
    const c = await openai.conversations.create({ items: [{ role: "user", content: "A long first message about ostriches and emus and their habits" }, { role: "assistant", content: "Noted." }] });
    const stream = await openai.responses.create({ model: MODEL, input: "And now?", conversation: c.id, stream: true });
    let final: OpenAI.Responses.Response | undefined;
    for await (const e of stream) if (e.type === "response.completed") final = e.response;
    expect(final!.usage!.input_tokens).toBeGreaterThan(bare.usage!.input_tokens);
    const items = await allItems(openai, c.id);
    expect(roles(items)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(items[3]!.id).toBe(final!.output[0]!.id);
    expect(await db.usageEvent.count({ where: { id: final!.id } })).toBe(1);
  });

  it("a background response appends its turn once it finishes", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({});
    const r = await openai.responses.create({ model: MODEL, input: "in the background", conversation: c.id, background: true });
    const done = await until(() => openai.responses.retrieve(r.id), (x) => x.status === "completed", 10_000);
    expect(done.value.status).toBe("completed");
    const items = await until(() => allItems(openai, c.id), (x) => x.length === 2, 5_000);
    expect(roles(items.value)).toEqual(["user", "assistant"]);
  });

  it("a failed response appends nothing, streamed or not", async () => {
    const { openai } = await newWorkspace("1");
    const c = await openai.conversations.create({});
    expect((await errorOf(openai.responses.create({ model: MODEL, input: "[sim:fail] no", conversation: c.id }))).status).toBeGreaterThanOrEqual(500);
    const stream = await openai.responses.create({ model: MODEL, input: "[sim:fail-mid-stream] no", conversation: c.id, stream: true });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types.at(-1)).toBe("response.failed");
    expect(await allItems(openai, c.id)).toEqual([]);
  });

  it("an unknown conversation is 404 naming `conversation`, uncharged; with previous_response_id it is 400", async () => {
    const { openai, workspace } = await newWorkspace("1");
    expect(await errorOf(openai.responses.create({ model: MODEL, input: "x", conversation: "conv_unknown" }))).toMatchObject({ status: 404, param: "conversation", code: "conversation_not_found" });
    expect(await errorOf(openai.responses.create({ model: MODEL, input: "x", conversation: "conv_unknown", stream: true }))).toMatchObject({ status: 404, param: "conversation" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);

    const c = await openai.conversations.create({});
    const r = await openai.responses.create({ model: MODEL, input: "x" });
    expect(await errorOf(openai.responses.create({ model: MODEL, input: "y", conversation: c.id, previous_response_id: r.id }))).toMatchObject({ status: 400, param: "conversation" });
    expect(await allItems(openai, c.id)).toEqual([]);
  });

  it("a raw `conversation` of the wrong type is 400", async () => {
    const { secret } = await newWorkspace("1");
    const res = await raw("/v1/responses", { method: "POST", key: secret, headers: { "content-type": "application/json" }, body: JSON.stringify({ model: MODEL, input: "x", conversation: 5 }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("conversation");
  });
});
