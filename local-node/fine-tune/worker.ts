// The training loop, run in a worker thread so the node's HTTP server never waits for it. It
// reports every step, hands over the full state at the end of every epoch (a checkpoint), when
// asked to pause, and at the end; a shared control word asks it to pause or stop between steps.
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { deserialize, serialize, type TrainState } from "./model";
import { Trainer, type StepMetrics, type TrainInput } from "./trainer";

export const CONTROL = { run: 0, pause: 1, stop: 2 } as const;

export type WorkerInput = {
  input: TrainInput;
  /** The saved state to go on from; null for a fresh run. */
  state: Uint8Array | null;
  /** One Int32: CONTROL.run, pause or stop. */
  control: SharedArrayBuffer;
  /** Pause between two steps (ms), cut short by a control change. */
  stepDelayMs: number;
};

export type FullValidation = { loss: number; accuracy: number } | null;

export type WorkerMessage =
  | { type: "step"; metrics: StepMetrics; trainedTokens: number }
  | { type: "checkpoint"; step: number; state: Uint8Array; metrics: StepMetrics; fullValid: FullValidation }
  | { type: "paused"; step: number; state: Uint8Array }
  | { type: "done"; step: number; state: Uint8Array; trainedTokens: number };

/** Runs (the rest of) a training; also callable in-thread, e.g. by tests. */
export function runTraining(data: WorkerInput, post: (m: WorkerMessage) => void): void {
  const control = new Int32Array(data.control);
  const state = data.state ? (deserialize(Buffer.from(data.state)) as TrainState) : undefined;
  const trainer = new Trainer(data.input, state);
  const bytes = () => new Uint8Array(serialize(trainer.s));
  while (!trainer.done) {
    const asked = Atomics.load(control, 0);
    if (asked === CONTROL.stop) return;
    if (asked === CONTROL.pause) return post({ type: "paused", step: trainer.s.step, state: bytes() });
    const metrics = trainer.step();
    post({ type: "step", metrics, trainedTokens: trainer.s.trainedTokens });
    if (trainer.atEpochEnd) post({ type: "checkpoint", step: trainer.s.step, state: bytes(), metrics, fullValid: trainer.fullValidation() });
    if (data.stepDelayMs > 0 && !trainer.done) Atomics.wait(control, 0, CONTROL.run, data.stepDelayMs);
  }
  post({ type: "done", step: trainer.s.step, state: bytes(), trainedTokens: trainer.s.trainedTokens });
}

if (!isMainThread && parentPort && (workerData as { fineTune?: WorkerInput } | null)?.fineTune) {
  const port = parentPort;
  runTraining((workerData as { fineTune: WorkerInput }).fineTune, (m) => port.postMessage(m));
}
