// Entry point of the built-in node process:  npm run local-node
//   LOCAL_NODE_PORT (default 8600), LOCAL_NODE_HOST (default 127.0.0.1), LOCAL_NODE_API_KEY (optional)
import { createLocalNode } from "./server";

const port = Number(process.env.LOCAL_NODE_PORT || 8600);
const host = process.env.LOCAL_NODE_HOST || "127.0.0.1";
const server = createLocalNode({ apiKey: process.env.LOCAL_NODE_API_KEY || undefined });

server.listen(port, host, () => {
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  process.stdout.write(`local-node listening on http://${host}:${actual}\n`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
