// Metrics on a port of their own (METRICS_PORT), for a scraper on a private network: no token.
// Served by the instance's first process, with every process's figures.
import { createServer } from "node:http";

export const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

export function listenForMetrics(host: string, port: number, text: () => Promise<string>, log: (line: string) => void): void {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") return void res.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics\n");
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(405, { allow: "GET, HEAD" }).end();
    text().then(
      (body) => res.writeHead(200, { "content-type": PROMETHEUS_TEXT }).end(req.method === "HEAD" ? undefined : body),
      (err: unknown) => res.writeHead(503, { "content-type": "text/plain" }).end(`metrics unavailable: ${String(err)}\n`),
    );
  });
  server.on("error", (err) => log(`metrics port ${host}:${port} failed: ${err.message}`));
  server.listen(port, host, () => log(`Metrics on http://${host}:${port}/metrics`));
  server.unref();
}
