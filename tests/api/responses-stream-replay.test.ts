// GET /v1/responses/{id}?stream=true: a stored response's events replayed as server-sent events
// (the types the streamed create sends, numbered), resumable with starting_after, and a
// background response followed while it runs, through the official SDK and raw HTTP.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace } from "../helpers";

const MODEL = "local-chat-sim";
type Event = OpenAI.Responses.ResponseStreamEvent;

async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

const TERMINAL = ["response.completed", "response.incomplete", "response.failed"];

describe("responses: streamed retrieval", () => {
  it("replays a stored response's events, numbered from 0, ending with its terminal event", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "Tell me something" });
    const events = await collect(await openai.responses.retrieve(r.id, { stream: true }));
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
    expect(created.response).toMatchObject({ id: r.id, status: "in_progress", output: [] });
    expect(created.response).not.toHaveProperty("usage"); // absent, not null, until it finished (OpenAI's document)
    const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    expect(text).toBe(r.output_text);
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    const { output_text: _sdkOnly, ...stored } = await openai.responses.retrieve(r.id);
    expect(done.response).toEqual(stored);

    // starting_after resumes: the same events, those numbered after it
    const resumed = await collect(await openai.responses.retrieve(r.id, { stream: true, starting_after: 4 }));
    expect(resumed).toEqual(events.slice(5));
    expect(await collect(await openai.responses.retrieve(r.id, { stream: true, starting_after: 99 }))).toEqual([]);
  });

  it("replays function calls with their argument events, and the same event types a streamed create sends", async () => {
    const { openai } = await newWorkspace("1");
    const tools = [{ type: "function" as const, name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] }, strict: false }];
    const live = await collect(await openai.responses.create({ model: MODEL, input: "please call lookup", tools, stream: true }));
    const id = (live[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const replayed = await collect(await openai.responses.retrieve(id, { stream: true }));
    expect(new Set(replayed.map((e) => e.type))).toEqual(new Set(live.map((e) => e.type)));
    const args = replayed.find((e) => e.type === "response.function_call_arguments.done") as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
    expect(args.name).toBe("lookup");
    expect(typeof JSON.parse(args.arguments).q).toBe("string");
    // the terminal event carries the same response (only the numbering of deltas differs)
    expect({ ...replayed.at(-1)!, sequence_number: 0 }).toEqual({ ...live.at(-1)!, sequence_number: 0 });
  });

  it("follows a running background response until it ends, then closes (no [DONE])", async () => {
    const { openai, secret } = await newWorkspace("1");
    // [sim:slow]: the node waits 2 s before answering, so the stream starts while the run is open
    const r = await openai.responses.create({ model: MODEL, input: "[sim:slow] in the background", background: true });
    const started = Date.now();
    const events = await collect(await openai.responses.retrieve(r.id, { stream: true }));
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(["response.created", "response.queued", "response.in_progress"]);
    expect((events[0] as OpenAI.Responses.ResponseCreatedEvent).response.status).toBe("queued");
    expect(events.filter((e) => TERMINAL.includes(e.type)).map((e) => e.type)).toEqual(["response.completed"]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const final = await openai.responses.retrieve(r.id);
    expect(events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("")).toBe(final.output_text);

    // the same stream, raw: named events, sequence numbers, nothing after the terminal event
    const res = await fetch(`${baseUrl()}/v1/responses/${r.id}?stream=true&starting_after=2`, { headers: { authorization: `Bearer ${secret}` } });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = (await res.text()).split("\n\n").filter(Boolean);
    expect(frames.map((f) => /^event: (\S+)\ndata: /.exec(f)?.[1])).toEqual(events.slice(3).map((e) => e.type));
    expect(frames.map((f) => (JSON.parse(f.slice(f.indexOf("data: ") + 6)) as Event).sequence_number)).toEqual(events.slice(3).map((e) => e.sequence_number));
  });

  it("ends a cancelled response's replay without a terminal event; an unknown id is 404", async () => {
    const { openai } = await newWorkspace("1");
    const r = await openai.responses.create({ model: MODEL, input: "[sim:slow] to be cancelled", background: true });
    const following = openai.responses.retrieve(r.id, { stream: true }).then(collect);
    await new Promise((res) => setTimeout(res, 300));
    expect((await openai.responses.cancel(r.id)).status).toBe("cancelled");
    const events = await following;
    expect(events[0]!.type).toBe("response.created");
    expect(events.some((e) => TERMINAL.includes(e.type))).toBe(false);
    const missing = await openai.responses.retrieve("resp_unknown", { stream: true }).catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
