// A local webhook receiver (node:http on 127.0.0.1, which the test run's outbound guard allows):
// records every delivery, and answers each path with the statuses it is told, 200 once they run out.
import { createServer } from "node:http";
import { freePort } from "../../server/infra/net/free-port";

export type Received = { path: string; headers: Record<string, string | string[] | undefined>; body: string; json: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

export type Receiver = {
  url: (path: string) => string;
  received: Received[];
  /** The next answers of `path`, in order (then 200). */
  answer: (path: string, statuses: number[]) => void;
  at: (path: string) => Received[];
  close: () => Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const scripted = new Map<string, number[]>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body, json: JSON.parse(body || "{}") });
      const status = scripted.get(path)?.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "not now");
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (path, statuses) => void scripted.set(path, [...statuses]),
    at: (path) => received.filter((r) => r.path === path),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
