// Entry point of the built-in node process:  npm run local-node
// Environment: see local-node/config.ts and docs/LOCAL-NODE.md.
import { readConfig } from "./config";
import { createLocalNode } from "./server";

let config;
try {
  config = readConfig(process.env);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
const { port, host } = config;
const server = createLocalNode(config);

server.listen(port, host, () => {
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  process.stdout.write(`local-node listening on http://${host}:${actual}\n`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
