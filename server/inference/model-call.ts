// What a modality's service returns for a call to a model, instead of running it: what admission
// must know (the endpoint, the model, the most the call can cost, its tokens) and how to run it
// once admitted: route -> call the provider -> meter, composed by the service from the router
// (routing/nodes/router.ts), the provider adapter (providers/) and the meter (ledger/meter.ts),
// since a stream meters at its end and a stored response before its answer. The pipeline
// (server/pipeline/pipeline.ts) admits the call, runs it, and ends the reservation if it fails.
import type { CallSpec } from "../admission/admit";
import type { Metering } from "../ledger/meter";

export class ModelCall<A> {
  constructor(
    readonly spec: CallSpec,
    /** Runs the admitted call; when it returns, the reservation is charged or handed to what it returned (a stream, a background run). */
    readonly run: (metering: Metering) => Promise<A>,
  ) {}
}

/** What an operation answers: its service's result, or the answer of the model call it returned. */
export type Answer<R> = R extends ModelCall<infer A> ? A : R;
