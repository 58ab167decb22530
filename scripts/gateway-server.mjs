// The gateway's HTTP server: Next.js's request handler on node:http, as `next start` runs it,
// plus one thing Next.js cannot do: send Content-Length on a streamed route handler response
// (it drops the header and sends chunked). A route states the length of its body in
// `x-content-length` (stored videos, for downloads and Range requests); it goes out as Content-Length.
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { clientIp } from "./lib/client-ip.mjs";

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? "0.0.0.0";
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const app = next({ dev: false, dir, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const trustProxy = process.env.TRUST_PROXY === "true";

const server = createServer((req, res) => {
  // Overwritten on every request, so a client cannot set it: sign-in throttling counts by it.
  req.headers["x-gateway-client-ip"] = clientIp(req, trustProxy);
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name, value) => setHeader(name.toLowerCase() === "x-content-length" ? "content-length" : name, value);
  handle(req, res).catch((err) => {
    console.error("request failed:", err);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => console.log(`Gateway server listening on http://${hostname}:${port}`));

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
