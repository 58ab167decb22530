// What the ledger tells the alerts after it commits or refuses, without importing them (the ledger
// knows no other domain): the movements a usage batch applied with the balances, key spend and
// budget counters they produced, and a budget refusal. Listeners live on globalThis, so the copy
// of this module that Next.js bundles and the gateway server's own copy share them. A listener
// must return at once (the ledger's commit and a refused call wait for nothing it does); one that
// throws is ignored.

/** A usage movement the ledger committed (its fields as ledger/movements.ts holds them). */
export type CommittedMovement = {
  id: string;
  workspaceId: string;
  apiKeyId: string | null;
  /** Signed effect on the balance (a charge is negative). */
  amount: { toString(): string };
  counters?: readonly string[];
  usage?: { planId?: string | null };
};

export type AppliedNote = {
  /** The batch's movements; those in `inserted` were applied (a repeat of a committed one is not). */
  movements: readonly CommittedMovement[];
  inserted: ReadonlySet<string>;
  /** New balance per workspace id. */
  balances: ReadonlyMap<string, string>;
  /** New `spent` per API key hash. */
  keySpent: ReadonlyMap<string, string>;
  /** New `spent` of each spend counter raised. */
  counters: readonly { workspaceId: string; counter: string; spent: string }[];
};

export type BudgetRefusalNote = { workspaceId: string; counter: string; cap: string; label: string; spent: string };

type Listeners = { applied: Set<(note: AppliedNote) => void>; refused: Set<(note: BudgetRefusalNote) => void> };

const shared = globalThis as unknown as { gatewayAlertNotes?: Listeners };
const listeners = (): Listeners => (shared.gatewayAlertNotes ??= { applied: new Set(), refused: new Set() });

function tell<N>(set: Set<(note: N) => void>, note: N): void {
  for (const l of set) {
    try {
      l(note);
    } catch {
      // A listener's failure is its own; the ledger's work is done.
    }
  }
}

export const onUsageApplied = (l: (note: AppliedNote) => void): void => void listeners().applied.add(l);
export const onBudgetRefused = (l: (note: BudgetRefusalNote) => void): void => void listeners().refused.add(l);

/** Called by the usage writer after a batch commits. */
export function noteUsageApplied(note: AppliedNote): void {
  if (listeners().applied.size) tell(listeners().applied, note);
}

/** Called where a call is refused for a spend cap (402 budget_exceeded). */
export function noteBudgetRefused(note: BudgetRefusalNote): void {
  if (listeners().refused.size) tell(listeners().refused, note);
}
