// The responses API's `mcp` tool on the built-in node, with the official SDK as the client and a
// stand-in MCP server: tools listed (mcp_list_tools), called by the gateway (mcp_call) and the
// model's answer, streamed as OpenAI's events; the approval round trip (approved and declined);
// registered labels without a URL, URLs allowed only with ad-hoc servers on; allowed_tools and a
// restricted key's tool list; each model turn and each priced tool call charged exactly once; a
// server that is down.
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActor } from "../../server/audit/actor";
import { createKey } from "../../server/identity/keys/create-key";
import { db } from "../../server/infra/db/client";
import { addServer, setAdhocServers, setToolPrice } from "../../server/mcp/registry/registry-store";
import { client, expectApiError, newWorkspace } from "../helpers";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";

const MODEL = "local-chat-sim";
const actor = cliActor();
let standIn: StandInMcpServer;
let down: string;

beforeAll(async () => {
  standIn = await startStandInMcpServer();
  const gone = await startStandInMcpServer();
  down = gone.url;
  await gone.close();
});
afterAll(() => standIn.close());

/** A workspace with the stand-in registered as `kit`. */
async function kitWorkspace() {
  const ws = await newWorkspace("10");
  await addServer(actor, ws.workspace.id, { name: "kit", url: standIn.url });
  return ws;
}

type Tool = OpenAI.Responses.Tool;
const kit = (extra: Partial<OpenAI.Responses.Tool.Mcp> = {}): Tool => ({ type: "mcp", server_label: "kit", require_approval: "never", ...extra });
const callsOf = (name: string) => standIn.calls.filter((c) => c.name === name).length;
const usage = (workspaceId: string) => db.usageEvent.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });

describe("responses API: mcp tools", () => {
  it("lists the server's tools, runs the model's call and answers: mcp_list_tools, mcp_call with output, message", async () => {
    const { openai, workspace } = await kitWorkspace();
    const before = callsOf("add");
    const r = await openai.responses.create({ model: MODEL, input: "Please use kit__add on two numbers.", tools: [kit()] });
    expect(r.status).toBe("completed");
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    const [list, call] = r.output as [OpenAI.Responses.ResponseOutputItem.McpListTools, OpenAI.Responses.ResponseOutputItem.McpCall];
    expect(list).toMatchObject({ server_label: "kit", error: null });
    expect(list.tools.map((t) => t.name).sort()).toEqual(["add", "echo", "fail"]);
    expect(list.tools.find((t) => t.name === "add")!.input_schema).toMatchObject({ type: "object", properties: { a: { type: "number" } } });
    const args = JSON.parse(call.arguments) as { a: number; b: number };
    expect(call).toMatchObject({ server_label: "kit", name: "add", error: null, output: String(args.a + args.b) });
    expect(callsOf("add")).toBe(before + 1);
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(r.tools).toEqual([expect.objectContaining({ type: "mcp", server_label: "kit", require_approval: "never" })]);
    // Two model turns, each charged once under its own id; the response's usage is their sum.
    const events = await usage(workspace.id);
    expect(events.map((e) => e.id)).toEqual([r.id, `${r.id}:2`]);
    expect(r.usage!.input_tokens).toBe(events.reduce((n, e) => n + e.inputTokens, 0));
    expect(r.usage!.output_tokens).toBe(events.reduce((n, e) => n + e.outputTokens, 0));
    // Stored: retrieved with the same items.
    expect((await openai.responses.retrieve(r.id)).output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
  });

  it("streams OpenAI's events in order", async () => {
    const { openai } = await kitWorkspace();
    const stream = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools: [kit()], stream: true });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.completed") completed = e.response;
    }
    const mcpTypes = types.filter((t) => t !== "response.output_text.delta");
    expect(mcpTypes).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.mcp_list_tools.in_progress",
      "response.mcp_list_tools.completed",
      "response.output_item.done",
      "response.output_item.added",
      "response.mcp_call_arguments.delta",
      "response.mcp_call_arguments.done",
      "response.mcp_call.in_progress",
      "response.mcp_call.completed",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(completed!.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect((completed!.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall).output).toEqual(expect.any(String));
    // The stored response replays the same events (its text in one delta).
    const replay: string[] = [];
    for await (const e of await openai.responses.retrieve(completed!.id, { stream: true })) replay.push(e.type);
    expect(replay.filter((t) => t !== "response.output_text.delta")).toEqual(mcpTypes);
  });

  it("bounded: a model that keeps calling tools gets 8 turns, the last without tools; max_tool_calls bounds the calls", async () => {
    const { openai, workspace } = await kitWorkspace();
    const r = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools: [kit()], tool_choice: "required" });
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", ...Array<string>(7).fill("mcp_call"), "message"]);
    expect((await usage(workspace.id)).map((e) => e.id).sort()).toEqual([r.id, ...[2, 3, 4, 5, 6, 7, 8].map((n) => `${r.id}:${n}`)].sort());
    const capped = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools: [kit()], tool_choice: "required", max_tool_calls: 2 } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(capped.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "mcp_call", "message"]);
  });

  it("approval: the call waits for the client; approved, it runs and the model answers", async () => {
    const { openai } = await kitWorkspace();
    const before = callsOf("add");
    // require_approval left out: OpenAI's default, every call waits.
    const first = await openai.responses.create({ model: MODEL, input: "use kit__add", tools: [{ type: "mcp", server_label: "kit" }] });
    expect(first.status).toBe("completed");
    expect(first.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_approval_request"]);
    const request = first.output[1] as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    expect(request).toMatchObject({ server_label: "kit", name: "add", arguments: expect.any(String) });
    expect(callsOf("add")).toBe(before);
    const second = await openai.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      tools: [{ type: "mcp", server_label: "kit" }],
      input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }],
    });
    expect(second.output.map((i) => i.type)).toEqual(["mcp_call", "message"]);
    expect(second.output[0]).toMatchObject({ approval_request_id: request.id, name: "add", arguments: request.arguments, error: null, output: expect.any(String) });
    expect(callsOf("add")).toBe(before + 1);
    // Answered once: a second answer is refused.
    await expectApiError(
      openai.responses.create({ model: MODEL, previous_response_id: second.id, tools: [{ type: "mcp", server_label: "kit" }], input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }] }),
      400,
      "input[0].approval_request_id",
    );
  });

  it("approval declined: nothing is called, the model is told and answers", async () => {
    const { openai } = await kitWorkspace();
    const before = callsOf("echo");
    const tools: Tool[] = [{ type: "mcp", server_label: "kit", require_approval: { always: { tool_names: ["echo"] } } }];
    const first = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools });
    const request = first.output.find((i) => i.type === "mcp_approval_request")!;
    const second = await openai.responses.create({ model: MODEL, previous_response_id: first.id, tools, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: false }] });
    expect(second.output.map((i) => i.type)).toEqual(["message"]);
    expect(callsOf("echo")).toBe(before);
    await expectApiError(openai.responses.create({ model: MODEL, tools, input: [{ type: "mcp_approval_response", approval_request_id: "mcpr_unknown", approve: true }] }), 400, "input[0].approval_request_id", "mcp_approval_request_not_found");
  });

  it("without store: the client sends the items back to answer an approval", async () => {
    const { openai } = await kitWorkspace();
    const tools: Tool[] = [{ type: "mcp", server_label: "kit", require_approval: "always" }];
    const first = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools, store: false });
    const request = first.output.find((i) => i.type === "mcp_approval_request")!;
    const second = await openai.responses.create({
      model: MODEL,
      store: false,
      tools,
      input: [{ role: "user", content: "use kit__echo" }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "mcp_approval_response", approval_request_id: request.id, approve: true }],
    });
    expect(second.output.map((i) => i.type)).toEqual(["mcp_call", "message"]);
  });

  it("an unregistered label needs a URL, allowed only when the workspace permits ad-hoc servers (outbound guard applied)", async () => {
    const { openai, workspace } = await newWorkspace("10");
    await expectApiError(openai.responses.create({ model: MODEL, input: "hi", tools: [{ type: "mcp", server_label: "other" }] }), 400, "tools[0].server_label", "mcp_server_not_found");
    const adhoc: Tool = { type: "mcp", server_label: "other", server_url: standIn.url, require_approval: "never" };
    await expectApiError(openai.responses.create({ model: MODEL, input: "hi", tools: [adhoc] }), 400, "tools[0].server_url", "mcp_server_not_allowed");
    await setAdhocServers(actor, workspace.id, true);
    await expectApiError(openai.responses.create({ model: MODEL, input: "hi", tools: [{ ...adhoc, server_url: "http://169.254.169.254/mcp" }] }), 400, "tools[0].server_url", "url_not_allowed");
    const before = callsOf("echo");
    const r = await openai.responses.create({ model: MODEL, input: "use other__echo", tools: [adhoc] });
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect(r.output[1]).toMatchObject({ server_label: "other", name: "echo" });
    expect(callsOf("echo")).toBe(before + 1);
    expect(await usage(workspace.id)).toHaveLength(2);
  });

  it("allowed_tools limits what the model is offered (a list, or OpenAI's filter object)", async () => {
    const { openai } = await kitWorkspace();
    for (const allowed_tools of [["echo"], { tool_names: ["echo"] }]) {
      const r = await openai.responses.create({ model: MODEL, input: "use a tool", tools: [kit({ allowed_tools })] });
      expect((r.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools).tools.map((t) => t.name)).toEqual(["echo"]);
      expect(r.output[1]).toMatchObject({ type: "mcp_call", name: "echo" });
    }
  });

  it("a restricted key's tool list applies: other tools are neither offered nor called", async () => {
    const { workspace } = await kitWorkspace();
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "echo only", permissions: ["text", "mcp"], tools: ["kit__echo"] }));
    const openai = client(secret);
    const before = callsOf("add");
    const r = await openai.responses.create({ model: MODEL, input: "use kit__add", tools: [kit()] });
    expect((r.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools).tools.map((t) => t.name)).toEqual(["echo"]);
    expect(r.output.filter((i) => i.type === "mcp_call").map((i) => (i as { name: string }).name)).not.toContain("add");
    expect(callsOf("add")).toBe(before);
    // A server named by URL could take the label its list allows: such a key uses registered servers only.
    await setAdhocServers(actor, workspace.id, true);
    const disguised: Tool = { type: "mcp", server_label: "kit2", server_url: standIn.url, require_approval: "never" };
    await expectApiError(openai.responses.create({ model: MODEL, input: "use kit2__echo", tools: [disguised] }), 400, "tools[0].server_url", "mcp_server_not_allowed");
  });

  it("a priced tool is charged once per call (mcp:<label>__<tool>), beside each model turn", async () => {
    const { openai, workspace } = await kitWorkspace();
    await setToolPrice(actor, workspace.id, "kit", "echo", "0.0025");
    const r = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools: [kit()] });
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    const events = await usage(workspace.id);
    const tools = events.filter((e) => e.modelId === "mcp:kit__echo");
    expect(tools).toHaveLength(1);
    expect(tools[0]!.cost.toFixed()).toBe("0.0025");
    expect(events.filter((e) => e.modelId === MODEL).map((e) => e.id).sort()).toEqual([r.id, `${r.id}:2`].sort());
  });

  it("a tool error is the mcp_call's error, free; the model is told and answers", async () => {
    const { openai, workspace } = await kitWorkspace();
    await setToolPrice(actor, workspace.id, "kit", "fail", "1");
    const r = await openai.responses.create({ model: MODEL, input: "use kit__fail", tools: [kit()] });
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect(r.output[1]).toMatchObject({ name: "fail", output: null, error: "the stand-in tool failed on purpose" });
    expect((await usage(workspace.id)).filter((e) => e.modelId.startsWith("mcp:"))).toEqual([]);
  });

  it("a server that is down: mcp_list_tools carries the error, the model answers without its tools, no tool charged", async () => {
    const { openai, workspace } = await newWorkspace("10");
    await setAdhocServers(actor, workspace.id, true);
    const r = await openai.responses.create({ model: MODEL, input: "use gone__echo", tools: [{ type: "mcp", server_label: "gone", server_url: down, require_approval: "never" }] });
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", "message"]);
    expect(r.output[0]).toMatchObject({ server_label: "gone", tools: [], error: expect.stringMatching(/could not be reached/) });
    const events = await usage(workspace.id);
    expect(events.map((e) => e.modelId)).toEqual([MODEL]);
  });

  it("max_tool_calls 0: no tool runs, the model answers in text", async () => {
    const { openai } = await kitWorkspace();
    // max_tool_calls is OpenAI's; this SDK's types do not have it yet.
    const r = await openai.responses.create({ model: MODEL, input: "use kit__echo", tools: [kit()], max_tool_calls: 0 } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(r.output.map((i) => i.type)).toEqual(["mcp_list_tools", "message"]);
    expect((r as unknown as { max_tool_calls: number }).max_tool_calls).toBe(0);
  });

  it("refusals before anything runs: background, an unknown label clash, headers never stored", async () => {
    const { openai } = await kitWorkspace();
    await expectApiError(openai.responses.create({ model: MODEL, input: "hi", tools: [kit()], background: true }), 400, "background");
    await expectApiError(openai.responses.create({ model: MODEL, input: "hi", tools: [kit({ server_url: "https://example.com/mcp" })] }), 400, "tools[0].server_url", "mcp_server_not_allowed");
    const r = await openai.responses.create({ model: MODEL, input: "hello", tools: [kit({ headers: { "x-secret": "s3cret" } })] });
    const row = await db.storedResponse.findUniqueOrThrow({ where: { id: r.id } });
    expect(JSON.stringify(row.request)).not.toContain("s3cret");
  });
});
