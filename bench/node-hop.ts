// `npm run bench:node-hop`: the CPU a serving process spends on one non-streamed node call's HTTP,
// undici's `request` with its body read by `body.text()` (how every node call was made) against
// `wholeAnswer` (server/infra/net/whole-answer.ts: undici's dispatch with a handler that gathers
// the chunks). A node:http stand-in in a process of its own answers a chat completion's JSON; this
// process sends BENCH_CALLS calls per round on BENCH_CONCURRENCY (32) at once, the two ways taken
// in turn for BENCH_ROUNDS rounds, and reports this process's CPU per call (user + system, so the
// socket writes count), median of the rounds.
//
//   npm run bench:node-hop
import { fork } from "node:child_process";
import { once } from "node:events";
import { Pool } from "undici";
import { wholeAnswer } from "../server/infra/net/whole-answer";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

if (process.argv[2] === "stand-in") {
  const http = await import("node:http");
  const answer = JSON.stringify({
    id: "chatcmpl-bench", object: "chat.completion", created: 1, model: "bench",
    choices: [{ index: 0, message: { role: "assistant", content: "Latency is the time between asking and getting." }, finish_reason: "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
  });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) }).end(answer));
  });
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as { port: number }).port));
} else {
  const child = fork(new URL(import.meta.url).pathname, ["stand-in"], { execArgv: ["--import", "tsx"] });
  const [port] = (await once(child, "message")) as [number];
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const body = JSON.stringify({ model: "bench", messages: [{ role: "user", content: "Say something short about latency." }], max_tokens: 16 });
  const request = () => ({ method: "POST" as const, path: "/v1/chat/completions", headers: { "content-type": "application/json", authorization: "Bearer x" }, body, headersTimeout: 25_000, bodyTimeout: 60_000 });
  const ways: Record<string, () => Promise<unknown>> = {
    "request + body.text()": async () => JSON.parse(await (await pool.request(request())).body.text()),
    wholeAnswer: async () => JSON.parse((await wholeAnswer(pool, request())).body.toString("utf8")),
  };
  const run = async (call: () => Promise<unknown>, n: number) => {
    let left = n;
    const before = process.cpuUsage();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await call();
    }));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  const results: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
  for (const call of Object.values(ways)) await run(call, CALLS / 4); // warm-up
  for (let r = 0; r < ROUNDS; r++) for (const [name, call] of Object.entries(ways)) results[name]!.push(await run(call, CALLS));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`A non-streamed node call's HTTP in the calling process, ${ROUNDS} rounds of ${CALLS} calls, ${CONCURRENCY} at once (CPU µs per call):\n`);
  console.log("| way | median | by round |\n|---|---|---|");
  for (const [name, xs] of Object.entries(results)) console.log(`| ${name} | ${median(xs).toFixed(1)} | ${xs.map((x) => x.toFixed(1)).join(", ")} |`);
  await pool.close();
  child.kill();
}
