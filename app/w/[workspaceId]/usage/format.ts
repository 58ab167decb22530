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
