// The walk of a non-streamed chat completion on the data plane: the server files whose code runs
// for one call, measured with V8's precise coverage around a call served by the node:http data
// plane in this process (after a first call has loaded everything lazily loaded). The list is in
// docs/DEVELOPMENT.md. The layers' files (all but the kernel's and infra's helpers, which every
// layer uses) are held to 33, counting the production server's gateway-server.ts, which hands
// the request to the data plane here (30 before nodes had wire formats and calls a log row: the
// OpenAI format's adapter and the request log's writer are files of their own; 33 since a model
// may name a route: routing/routes/route-cache.ts answers "not a route" with a map lookup).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLogWriter } from "../../server/request-log/log-writer";
import { serveDataPlane } from "../../server/transport/node/data-plane";
import { newWorkspace } from "../helpers";

const root = path.resolve(__dirname, "../..");
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const [pathname, search = ""] = (req.url ?? "/").split("?");
    void serveDataPlane(req, res, pathname!, search);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Coverage = { result: { scriptId: string; url: string; functions: { ranges: { startOffset: number; endOffset: number; count: number }[] }[] }[] };

/**
 * The accessor the test runner's module transform gives each export (`() => { try { return X }
 * catch {} }`): it runs when another file reads the import, which in the built server is a plain
 * reference.
 */
const EXPORT_ACCESSOR = /^(get\s*)?\(\)\s*(=>\s*)?\{\s*(try\s*\{\s*)?return\s+[\w$]+;?\s*\}(\s*catch\s*\{\s*\})?\s*\}?$/;

/** The server files with code that ran since the last take (not counting a mere read of their exports). */
async function filesRun(session: Session, coverage: Coverage): Promise<string[]> {
  const files = new Set<string>();
  for (const script of coverage.result) {
    const file = script.url.startsWith("file://") ? new URL(script.url).pathname : script.url;
    if (!file.startsWith(path.join(root, "server/")) || file.includes("/generated/")) continue;
    const ran = script.functions.filter((f) => f.ranges[0]!.count > 0);
    if (!ran.length) continue;
    const { scriptSource } = await session.post("Debugger.getScriptSource", { scriptId: script.scriptId });
    const code = ran.some((f) => !EXPORT_ACCESSOR.test(scriptSource.slice(f.ranges[0]!.startOffset, f.ranges[0]!.endOffset).trim()));
    if (code) files.add(path.relative(root, file).split("?")[0]!);
  }
  return [...files].sort();
}

describe("the walk of a chat completion", () => {
  it("enters at most 32 files of the layers", async () => {
    const { secret } = await newWorkspace("1");
    const chat = () =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }),
      }).then(async (res) => ({ status: res.status, body: await res.text() }));
    expect((await chat()).status).toBe(200); // loads what is loaded lazily, fills the caches
    await requestLogWriter().flush(); // its row is written now, not while the next call is measured
    const session = new Session();
    session.connect();
    await session.post("Debugger.enable");
    await session.post("Profiler.enable");
    await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
    // Two calls, each measured on its own: a file counts when it ran for both. Work this process
    // does meanwhile for other reasons (the node registry reloading because another test file
    // changed the nodes) then does not count as the call's.
    const walks: string[][] = [];
    const answers: number[] = [];
    for (let i = 0; i < 2; i++) {
      await requestLogWriter().flush();
      await session.post("Profiler.takePreciseCoverage"); // counts from here
      answers.push((await chat()).status);
      walks.push(await filesRun(session, (await session.post("Profiler.takePreciseCoverage")) as Coverage));
    }
    const files = walks[0]!.filter((f) => walks[1]!.includes(f));
    await session.post("Profiler.stopPreciseCoverage");
    await session.post("Debugger.disable");
    session.disconnect();
    expect(answers).toEqual([200, 200]);
    const layered = files.filter((f) => !/^server\/(kernel|infra)\//.test(f));
    console.log(`chat walk: ${files.length} files, ${layered.length} of the layers (the node:http host's gateway-server.ts, which hands the request here, is one more)\n${files.join("\n")}`);
    expect(layered.length).toBeLessThanOrEqual(32); // 33 with gateway-server.ts
  });
});
