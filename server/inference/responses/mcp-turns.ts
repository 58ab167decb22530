// The model turns of a response that runs MCP tools, each metered as the responses API meters a
// call: admitted (rate limits, caps, a hold on the balance), then charged once under its own usage
// event id, `<response id>` for the first turn and `<response id>:<n>` for the n-th, so that a
// response of several turns is charged once per turn and never twice for one. The first turn uses
// the reservation the pipeline admitted for the request, unless what the turn sends can cost more
// (an approved call's result came before it): it is then admitted again for that. Charges wait
// until the response is stored, as for any response; a turn that is never charged is released.
import { admit, type CallSpec } from "../../admission/admit";
import type { CallContext } from "../../identity/principal";
import { logFor } from "../../infra/telemetry/log";
import { release, type Metering } from "../../ledger/meter";
import { money } from "../../kernel/money";
import { maxChatBounds } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { callNode } from "../chat/call-node";
import type { OpenAIUsage } from "../chat/completion-shape";
import { responsesUsage, type ResponsesUsage } from "./translate";

const log = logFor("responses");

export class TurnMeters {
  private readonly meters: Metering[] = [];
  private readonly charges: (() => Promise<void>)[] = [];
  private first: Metering | null;
  /** The sum of the turns' usage, as the response reports it. */
  usage: ResponsesUsage = responsesUsage(undefined);

  constructor(
    first: Metering,
    private readonly ctx: CallContext,
    private readonly row: ModelRow,
    private readonly spec: CallSpec,
  ) {
    this.first = first;
  }

  /** How many turns the node answered. */
  get count(): number {
    return this.charges.length;
  }

  private async meterFor(turn: number, body: Record<string, unknown>): Promise<Metering> {
    const { maxCost, tokens } = maxChatBounds(this.row, body);
    const first = this.first;
    this.first = null;
    if (first && turn === 1 && maxCost.lte(money(this.spec.maxCost))) return first;
    if (first) release(first);
    return admit(this.ctx, { ...this.spec, maxCost, tokens, eventId: turn === 1 ? this.spec.eventId : `${this.spec.eventId}:${turn}` });
  }

  /** Runs turn `turn` on the node; it is charged by `chargeAll`. */
  async call(turn: number, body: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const m = await this.meterFor(turn, body);
    this.meters.push(m);
    const { result, charge } = await callNode(m, this.row, body, signal);
    this.charges.push(charge);
    this.usage = addUsage(this.usage, responsesUsage(result.usage as OpenAIUsage | undefined));
    return result;
  }

  /**
   * Charges every turn the node answered, in order. When the first charge fails nothing was
   * charged and the error is thrown (the caller takes the response back); a later failure is
   * logged, the turns charged so far stand.
   */
  async chargeAll(): Promise<void> {
    for (const [i, charge] of this.charges.entries()) {
      try {
        await charge();
      } catch (err) {
        this.releaseAll();
        if (i === 0) throw err;
        log.error({ err }, "a model turn of a response with MCP tools could not be charged");
        return;
      }
    }
  }

  /** Ends every reservation not charged (a no-op for those that were). */
  releaseAll(): void {
    if (this.first) release(this.first);
    this.first = null;
    for (const m of this.meters) release(m);
  }
}

function addUsage(a: ResponsesUsage, b: ResponsesUsage): ResponsesUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    input_tokens_details: {
      cached_tokens: a.input_tokens_details.cached_tokens + b.input_tokens_details.cached_tokens,
      cache_write_tokens: (a.input_tokens_details.cache_write_tokens ?? 0) + (b.input_tokens_details.cache_write_tokens ?? 0),
    },
    output_tokens: a.output_tokens + b.output_tokens,
    output_tokens_details: { reasoning_tokens: a.output_tokens_details.reasoning_tokens + b.output_tokens_details.reasoning_tokens },
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
