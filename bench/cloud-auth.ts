// `npm run bench:cloud-auth`: what the cloud wire formats add to a call beside the `openai` wire
// path, in-process, per call: SigV4 signing of a Bedrock request (a 1.2 KB chat body), adding a
// cached Google OAuth token (a Vertex node's signer, its token fetched once from a local token
// endpoint) and a cached Microsoft Entra ID token (an Azure node's), and decoding a Bedrock
// ConverseStream answer (an AWS binary event stream of 11 events, the recorded-style sequence of
// the tests' stand-in, in 3 network chunks). The `openai` path does none of these. Prints the
// median and p99 in microseconds over BENCH_OPS (20,000) operations each, after a warm-up.
//
//   npm run bench:cloud-auth
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { entraSigner } from "../server/providers/azure/entra-token";
import { framesOf } from "../server/providers/bedrock/event-stream";
import { sigV4Signer } from "../server/providers/bedrock/signer";
import type { Signer } from "../server/providers/cloud";
import { googleSigner } from "../server/providers/vertex/token";
import { CONVERSE, converseEvents } from "../tests/fakes/bedrock-upstream";

const N = Number(process.env.BENCH_OPS ?? 20_000);
const WARMUP = 2_000;

async function measure(op: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await op();
  const times = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    await op();
    times[i] = Number(process.hrtime.bigint() - t) / 1000;
  }
  times.sort();
  return { median: times[N >> 1]!, p99: times[Math.floor(N * 0.99)]! };
}

const body = JSON.stringify({
  anthropic_version: "bedrock-2023-05-31",
  max_tokens: 512,
  system: "You are a helpful assistant. ".repeat(8),
  messages: [{ role: "user", content: "Summarise the following text in two sentences. ".repeat(18) }],
});
const request = (sign: Signer) => () =>
  sign({ method: "POST", url: new URL("https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke"), headers: { "content-type": "application/json", accept: "application/json" }, body });

// A token endpoint on this machine: the service account's JWT is exchanged once, then the token is reused.
const tokenServer = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: "ya29.bench-token", expires_in: 3600, token_type: "Bearer" })));
});
await new Promise<void>((r) => tokenServer.listen(0, "127.0.0.1", r));
const { port } = tokenServer.address() as { port: number };
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const serviceAccount = {
  type: "service_account",
  client_email: "bench@bench-project.iam.gserviceaccount.com",
  private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  token_uri: `http://127.0.0.1:${port}/token`,
};

// A Bedrock ConverseStream answer as the wire carries it, cut in three network chunks.
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value: string) => ({ type: "string" as const, value });
const wire = Buffer.concat(
  converseEvents(CONVERSE.tool).map(([type, payload]) => codec.encode({ headers: { ":event-type": str(type), ":content-type": str("application/json"), ":message-type": str("event") }, body: fromUtf8(JSON.stringify(payload)) })),
);
const third = Math.ceil(wire.length / 3);
const chunks = [wire.subarray(0, third), wire.subarray(third, 2 * third), wire.subarray(2 * third)];
async function* arriving() {
  for (const c of chunks) yield c;
}
const events = converseEvents(CONVERSE.tool).length;
const decode = async () => {
  let n = 0;
  for await (const _ of framesOf(arriving())) n++;
  if (n !== events) throw new Error(`decoded ${n} events of ${events}`);
};

const rows: [string, () => Promise<unknown>][] = [
  ["Bedrock: SigV4 signature of a request (1.2 KB body), node keys", request(sigV4Signer("us-east-1", { access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }))],
  ["Vertex: the node's cached Google token added", request(googleSigner({ service_account: serviceAccount }))],
  ["Azure: the node's cached Entra ID token added", request(entraSigner(async () => ({ getToken: async () => ({ token: "eyJ.bench.token", expiresOnTimestamp: Date.now() + 3_600_000 }) })))],
  [`Bedrock: a ConverseStream answer decoded (${events} events, ${wire.length} bytes)`, decode],
];
const lines: string[] = [];
for (const [name, op] of rows) {
  const { median, p99 } = await measure(op);
  lines.push(`| ${name} | ${median.toFixed(1)} | ${p99.toFixed(1)} |`);
  process.stderr.write(`[bench] ${name}: median ${median.toFixed(1)} µs\n`);
}
tokenServer.close();
process.stdout.write(`What a cloud node adds per call beside the openai wire path, ${N.toLocaleString("en")} operations each (µs):\n\n| operation | median | p99 |\n|---|---|---|\n${lines.join("\n")}\n`);
process.exit(0);
