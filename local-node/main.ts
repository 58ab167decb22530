// Entry point of the built-in node process:  npm run local-node
// Environment: see local-node/config.ts and docs/LOCAL-NODE.md.
import { readConfig } from "./config";
import { espeakEngine } from "./espeak";
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
  // load the speech engine now rather than on the first speech request
  espeakEngine().catch((err: Error) => process.stderr.write(`local-node: speech engine failed to load: ${err.message}\n`));
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
