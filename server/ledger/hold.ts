// A call's reservation: the most the call can cost, taken from its instance's credit lease in
// memory when the call is admitted, and given back when its charge commits or the call fails.
import type { Money } from "../kernel/money";

/** What a hold needs of the lease book it came from. */
export type HoldOwner = { readonly instanceId: string; unhold(hold: Hold): void };

export class Hold {
  private open = true;
  private readonly onEnd: (() => void)[] = [];
  constructor(
    private readonly book: HoldOwner,
    /** The lease it was taken from (the book's entry for the workspace). */
    readonly lease: object,
    readonly workspaceId: string,
    readonly amount: Money,
    readonly createdAt = Date.now(),
  ) {}

  /** Whose lease the charge of this call lowers. */
  get instanceId(): string {
    return this.book.instanceId;
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Runs `fn` when the hold ends (what else the call held: its budgets, its rate-limit slot). */
  whenEnded(fn: () => void): void {
    if (this.open) this.onEnd.push(fn);
    else fn();
  }

  /** Gives the reservation back to the lease (the call failed, or its charge committed). Idempotent. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    this.book.unhold(this);
    for (const fn of this.onEnd) fn();
  }
}
