// Runs once when a Next.js server process starts: background work of the instance and traces, unless the
// gateway's own server (server/transport/node/gateway-server.ts, `npm start`) already runs it in this
// process.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.GATEWAY_BACKGROUND_OWNER) return;
  const [{ startBackground, startSpoolReplay }, { startTracing }] = await Promise.all([import("./server/background"), import("./server/infra/telemetry/tracing")]);
  startBackground();
  void startSpoolReplay();
  await startTracing();
}
