// The load generator's own process, so its CPU and event loop are apart from the bench's.
// Takes one spec (JSON) as its argument; prints `start` when the measured load begins (after any
// warm-up), then one line of JSON with the result. Spawned by bench/lib/load.ts.
import { cannon, type CannonSpec } from "./cannon";
import { fixedRate, type RateSpec } from "./fixed-rate";

export type LoadSpec = RateSpec | CannonSpec;

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const onStart = () => process.stdout.write("start\n");
const result = spec.kind === "rate" ? await fixedRate(spec, onStart) : await cannon(spec, onStart);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
