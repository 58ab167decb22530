// The environment of the bench's own gateway, set before any server module reads it (the
// gateway's env is parsed once, at import): import this module first.
process.env.LOCAL_NODE_ENABLED = "false"; // the mock upstream is the only node
process.env.NEXT_TELEMETRY_DISABLED = "1";

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
export const RATE = Number(process.env.BENCH_RATE ?? 200);
export const LATENCY_ROUNDS = Math.max(1, Number(process.env.BENCH_LATENCY_ROUNDS ?? 3));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
export const RSS_REQUESTS = Number(process.env.BENCH_RSS_REQUESTS ?? 100_000);
export const CPU_PROF = process.env.BENCH_CPU_PROF === "1";
