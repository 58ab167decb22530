// Exact decimal money. Amounts travel as decimal strings and are computed with decimal.js at a
// precision far beyond the 18 decimal places the database keeps; never as JavaScript numbers.
import Decimal from "decimal.js";
import { z } from "zod";

export const Money = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -60, toExpPos: 60 });
export type Money = InstanceType<typeof Money>;

/** Matches a non-negative decimal string such as "25", "0.000001" (no exponent, no sign). */
export const DECIMAL_STRING = /^\d+(\.\d+)?$/;

/** A Money of a decimal string, a number or a decimal; a Money is returned as it is (they never change). */
export function money(value: string | number | { toString(): string }): Money {
  if (value instanceof Money) return value;
  return new Money(typeof value === "number" ? value : value.toString());
}

/** A plain decimal string without exponent and without trailing zeros ("1.50" -> "1.5"). */
export function formatMoney(value: Money | string | { toString(): string }): string {
  const d = value instanceof Money ? value : money(value);
  return d.toFixed();
}

/** A USD amount as a decimal string: non-negative, at most 18 decimal places (what the database keeps). */
export const ZCreditAmount = z
  .string()
  .regex(DECIMAL_STRING, "must be a non-negative decimal amount in USD, such as 25 or 0.5")
  .refine((v) => !DECIMAL_STRING.test(v) || money(v).decimalPlaces() <= 18, "at most 18 decimal places");
