// A job's cost as the exact decimal the ledger charged, or, while it trains, what is held for it.
import type { JobMoney } from "./job-shape";

export function MoneyText({ money }: { money: JobMoney | undefined }) {
  if (money?.cost) {
    return (
      <span data-testid="job-cost" className="tabular-nums" title={`${money.cost} USD`}>
        ${money.cost}
      </span>
    );
  }
  if (money && money.held !== "0") {
    return (
      <span data-testid="job-held" className="tabular-nums text-slate-500" title="Held from the balance until the job ends; it is charged on the tokens trained.">
        ${money.held} held
      </span>
    );
  }
  return <span className="text-slate-400">—</span>;
}
