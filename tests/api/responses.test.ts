// The responses API over the built-in node (which only speaks chat completions: the gateway
// translates), with the official SDK.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney, money } from "../../server/kernel/money";
import { newWorkspace, until } from "../helpers";

const MODEL = "local-chat-sim";

describe("responses API", () => {
  it("creates a stored response with every Response field, and bills it once under its id", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "Hello there", instructions: "Be brief", metadata: { team: "a" } });
    expect(r).toMatchObject({
      object: "response",
      status: "completed",
      model: MODEL,
      background: false,
      store: true,
      instructions: "Be brief",
      metadata: { team: "a" },
      previous_response_id: null,
      error: null,
      incomplete_details: null,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      temperature: expect.any(Number),
      top_p: expect.any(Number),
      service_tier: expect.any(String),
    });
    expect(r.id).toMatch(/^resp_/);
    expect(r.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: expect.any(String), annotations: [] }] });
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(r.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    expect(r.usage!.total_tokens).toBe(r.usage!.input_tokens + r.usage!.output_tokens);
    const event = await db.usageEvent.findUniqueOrThrow({ where: { id: r.id } });
    const cost = money("0.15").times(r.usage!.input_tokens).plus(money("0.6").times(r.usage!.output_tokens)).dividedBy(1_000_000);
    expect(formatMoney(event.cost)).toBe(formatMoney(cost));
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
    expect(await openai.responses.retrieve(r.id)).toMatchObject({ id: r.id, status: "completed", output: r.output });
  });

  it("accepts typed input items and lists them, paginated, newest first", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({
      model: MODEL,
      input: [
        { role: "system", content: "You are terse." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "first" }] },
        { role: "assistant", content: "ok" },
        { role: "user", content: "second" },
      ],
    });
    const page = await openai.responses.inputItems.list(r.id, { limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.data[0]).toMatchObject({ type: "message", role: "user", content: [{ type: "input_text", text: "second" }] });
    expect(page.has_more).toBe(true);
    const all = [];
    for await (const item of openai.responses.inputItems.list(r.id, { limit: 1, order: "asc" })) all.push(item);
    expect(all.map((i) => (i as { role: string }).role)).toEqual(["system", "user", "assistant", "user"]);
  });

  it("chains turns with previous_response_id: the node sees the whole conversation", async () => {
    const { openai } = await newWorkspace("1");
    const first = await openai.responses.create({ model: MODEL, input: "Remember the word ostrich" });
    const second = await openai.responses.create({ model: MODEL, input: "What was the word?", previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    // more input tokens: the first turn's input and output were sent again
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens + first.usage!.output_tokens);
    const unknown = await openai.responses.create({ model: MODEL, input: "x", previous_response_id: "resp_nope" }).catch((e) => e);
    expect(unknown.status).toBe(404);
    expect(unknown.error.param).toBe("previous_response_id");
  });

  it("store: false is answered but not kept", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "ephemeral", store: false });
    expect((r as unknown as { store: boolean }).store).toBe(false);
    expect((await openai.responses.retrieve(r.id).catch((e) => e)).status).toBe(404);
  });

  it("streams response.* events in order with exactly one terminal event", async () => {
    const { openai } = await newWorkspace("1");
    const stream = await openai.responses.create({ model: MODEL, input: "stream it", stream: true });
    const types: string[] = [];
    let text = "";
    let final: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.output_text.delta") text += e.delta;
      if (e.type === "response.completed") final = e.response;
    }
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types).toContain("response.output_text.delta");
    expect(types.filter((t) => ["response.completed", "response.incomplete", "response.failed"].includes(t))).toEqual(["response.completed"]);
    expect(types.slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    const message = final!.output[0] as { content: { text: string }[] };
    expect(message.content[0]!.text).toBe(text);
    expect((await openai.responses.retrieve(final!.id)).status).toBe("completed");
  });

  it("streams the raw events as `event:`/`data:` frames without [DONE]", async () => {
    const { secret } = await newWorkspace("1");
    const res = await fetch(`${inject("baseUrl")}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, input: "raw", stream: true, max_output_tokens: 16 }),
    });
    const raw = await res.text();
    const frames = raw.split("\n\n").filter(Boolean);
    for (const f of frames) expect(f).toMatch(/^event: response\.[a-z_.]+\ndata: \{/);
    expect(raw).not.toContain("[DONE]");
    expect(frames.at(-1)).toMatch(/^event: response\.(completed|incomplete)\n/);
  });

  it("max_output_tokens ends a response incomplete", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "say a lot", max_output_tokens: 16 });
    expect(["completed", "incomplete"]).toContain(r.status);
    if (r.status === "incomplete") expect(r.incomplete_details).toEqual({ reason: "max_output_tokens" });
  });

  it("returns function calls and takes their outputs back", async () => {
    const { openai } = await newWorkspace("1");
    const tools = [{ type: "function" as const, name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] }, strict: false }];
    const r = await openai.responses.create({ model: MODEL, input: "please call lookup", tools });
    const call = r.output.find((o) => o.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "lookup", call_id: expect.any(String) });
    const next = await openai.responses.create({
      model: MODEL,
      previous_response_id: r.id,
      tools,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: '{"answer":42}' }],
    });
    expect(next.status).toBe("completed");
    expect(next.output[0]!.type).toBe("message");
  });

  it("background: returns at once, finishes without the connection, and can be polled", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "in the background", background: true });
    expect(["queued", "in_progress"]).toContain(r.status);
    expect(r.background).toBe(true);
    const done = await until(() => openai.responses.retrieve(r.id), (x) => x.status === "completed", 10_000);
    expect(done.value.output_text.length).toBeGreaterThan(0);
    expect(await db.usageEvent.count({ where: { id: r.id } })).toBe(1);
  });

  it("cancel moves a running background response to cancelled, and it stays cancelled", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "[sim:slow] take your time", background: true });
    const cancelled = await openai.responses.cancel(r.id);
    expect(cancelled.status).toBe("cancelled");
    await new Promise((res) => setTimeout(res, 2500));
    expect((await openai.responses.retrieve(r.id)).status).toBe("cancelled");
    const plain = await openai.responses.create({ model: MODEL, input: "not background" });
    expect((await openai.responses.cancel(plain.id).catch((e) => e)).status).toBe(400);
  });

  it("background with stream is 400; bad fields name their param", async () => {
    const { openai } = await newWorkspace("1");
    const both = await openai.responses.create({ model: MODEL, input: "x", background: true, stream: true } as never).catch((e) => e);
    expect(both.status).toBe(400);
    expect(both.error.param).toBe("background");
    for (const [patch, param] of [
      [{ input: [] }, "input"],
      [{ temperature: 5 }, "temperature"],
      [{ max_output_tokens: 2 }, "max_output_tokens"],
      [{ metadata: { k: "x".repeat(600) } }, "metadata.k"],
      [{ model: "local-embed-ngram" }, "model"],
    ] as const) {
      const err = await openai.responses.create({ model: MODEL, input: "x", ...(patch as object) } as never).catch((e) => e);
      expect(err.status, param).toBe(400);
      expect(err.error.param).toBe(param);
    }
  });

  it("another workspace's response is 404 on every route, and delete removes it", async () => {
    const a = await newWorkspace("1", "A");
    const b = await newWorkspace("1", "B");
    const r = await a.openai.responses.create({ model: MODEL, input: "mine" });
    for (const call of [
      () => b.openai.responses.retrieve(r.id),
      () => b.openai.responses.delete(r.id),
      () => b.openai.responses.cancel(r.id),
      () => b.openai.responses.inputItems.list(r.id),
      () => b.openai.responses.create({ model: MODEL, input: "x", previous_response_id: r.id }),
    ]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect((await a.openai.responses.retrieve(r.id)).id).toBe(r.id);
    expect(await a.openai.responses.delete(r.id)).toEqual({ id: r.id, object: "response.deleted", deleted: true });
    expect((await a.openai.responses.retrieve(r.id).catch((e) => e)).status).toBe(404);
  });
});
