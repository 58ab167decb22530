// A call as the services below the pipeline see it: who makes it (the principal: identity's type,
// or just the payer the ledger needs), the request id it is answered under, what it produced
// beside its answer (call-outcome.ts), and its telemetry. One type for every layer.
import type { CallObserver } from "./call-observer";
import type { CallOutcome } from "./call-outcome";
import type { AttemptScope } from "./attempt-scope";

/** Who pays for a call: the workspace, and the API key it was made with (null for the other credentials). */
export type Payer = { workspaceId: string; keyId: string | null };

export type CallContext<P extends Payer = Payer> = {
  principal: P;
  requestId: string;
  outcome: CallOutcome;
  /** The request's telemetry (metrics, log line, trace), told what the call was charged; absent outside a request. */
  observer?: CallObserver;
  /**
   * A line of a batch (server/batches/): its usage event's id, fixed by the batch and the line so
   * a line run again after a worker died is charged once, and the fraction of the live price it
   * is charged (the model's batch discount), a decimal string.
   */
  batchLine?: { eventId: string; priceFactor: string };
  /** The attempt of a routed call now under way (kernel/attempt-scope.ts); absent for a call that names its model. */
  attempt?: AttemptScope;
  /** The id of the response a call creates (`/v1/responses`), made once per call: a routed call asks each target's service for its call, and they must name the same response. */
  responseId?: string;
};
