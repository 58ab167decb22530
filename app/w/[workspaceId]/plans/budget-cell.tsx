// One period of a budget in a table cell: spent against the cap, a bar, and what is left.
import Decimal from "decimal.js";
import type { BudgetFigure } from "@/server/ledger/budget-overview";
import { formatCap } from "./plan-format";

export function BudgetCell({ figure, period }: { figure: BudgetFigure; period: string }) {
  if (figure.cap === null) {
    return (
      <span title={`${figure.spent} USD spent ${period}; no cap`}>
        {formatCap(figure.spent)} <span className="text-slate-500">· no cap</span>
      </span>
    );
  }
  const cap = new Decimal(figure.cap);
  const share = cap.isZero() ? 1 : Decimal.min(new Decimal(figure.spent).dividedBy(cap), 1).toNumber();
  const exhausted = figure.left === "0";
  return (
    <div className="flex min-w-36 flex-col gap-1" title={`${figure.spent} of ${figure.cap} USD spent ${period}; ${figure.left} USD left`}>
      <span>
        {formatCap(figure.spent)} <span className="text-slate-500">of {formatCap(figure.cap)}</span>
      </span>
      <span className="h-1.5 w-full overflow-hidden rounded-full bg-slate-100" aria-hidden>
        <span className={`block h-full ${exhausted ? "bg-red-500" : share > 0.8 ? "bg-amber-500" : "bg-indigo-500"}`} style={{ width: `${share * 100}%` }} />
      </span>
      <span className={`text-xs ${exhausted ? "font-medium text-red-700" : "text-slate-600"}`}>{formatCap(figure.left!)} left</span>
    </div>
  );
}
