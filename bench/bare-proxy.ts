// The floor of any Node.js gateway on this machine: a bare node:http server that reads a request's
// body and forwards it through an undici keep-alive pool to the upstream, then relays the
// answer's status, content type and body. No parsing, no credential, no billing. Its overhead over
// the direct call is what the extra hop alone costs here (bench/latency.ts measures it beside ours).
//
//   PROXY_PORT=8098 PROXY_UPSTREAM=http://127.0.0.1:8099 node --import tsx bench/bare-proxy.ts
import { createServer } from "node:http";
import { Pool } from "undici";

const upstream = new Pool(process.env.PROXY_UPSTREAM!, { connections: 64 });
const port = Number(process.env.PROXY_PORT);

createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (req.url === "/health") return void res.end("ok");
  const answer = await upstream.request({ method: "POST", path: req.url!, headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) });
  res.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "application/json") });
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
}).listen(port, "127.0.0.1");
