// Display formatting for the usage, keys and billing pages. Money arrives as exact decimal
// strings and is only rounded for display here, with decimal.js (never JavaScript numbers).
import Decimal from "decimal.js";

/** "$1.234567" (at most `places` decimals, trailing zeros kept to 2); a non-zero amount too small to show reads "<$0.000001". */
export function formatUsd(amount: string, places = 6): string {
  const d = new Decimal(amount);
  const sign = d.isNegative() ? "−" : "";
  const abs = d.abs();
  const min = new Decimal(1).dividedBy(new Decimal(10).pow(places));
  if (!abs.isZero() && abs.lt(min)) return `${sign}<$${min.toFixed()}`;
  const rounded = abs.toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
  const text = rounded.decimalPlaces() < 2 ? rounded.toFixed(2) : rounded.toFixed();
  const [whole, frac] = text.split(".");
  return `${sign}$${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}`;
}

/**
 * A money axis's tick labels for values up to `max`: as currency, with as many decimals as the
 * step between recharts' ticks (about a quarter of the top) needs, so neighbouring ticks never
 * read the same, and never in exponent form ("$0.0014", "$0.50", "$1,250").
 */
export function usdAxis(max: number): (value: number) => string {
  const step = max > 0 ? max / 4 : 1;
  const decimals = step >= 10 ? 0 : Math.min(12, Math.max(2, 1 - Math.floor(Math.log10(step))));
  const format = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return (value) => (value === 0 ? "$0" : format.format(value));
}

/** A chart tooltip's amount: the exact decimal string behind the bar, formatted like the tables. */
export const usdTooltip = (exact: string | undefined, value: unknown): string => (exact === undefined ? String(value) : formatUsd(exact, 12));

/** Local date and time; only ever rendered in the browser (after data arrives), so no hydration mismatch. */
export function formatDateTime(iso: string | null): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function formatDate(iso: string | null): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" });
}

export const formatCount = (n: number) => n.toLocaleString("en-US");
