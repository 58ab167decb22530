// Prices in USD (the catalog's decimal strings) to the token's atomic units and back, exactly:
// a price is rounded up to the next atomic unit (a payer never pays less than the price), and a
// settled amount converts back without loss. One token unit is one USD (a USD stablecoin).
import { money, Money } from "../../kernel/money";

/** USD -> atomic units of a token with `decimals` places, rounded up. */
export function toAtomic(usd: Money | string, decimals: number): bigint {
  const scaled = money(usd).times(new Money(10).pow(decimals)).toDecimalPlaces(0, Money.ROUND_UP);
  if (scaled.isNegative()) throw new Error("x402: a price cannot be negative");
  return BigInt(scaled.toFixed(0));
}

/** Atomic units -> USD, exactly. */
export function fromAtomic(atomic: bigint | string, decimals: number): Money {
  return money(atomic.toString()).dividedBy(new Money(10).pow(decimals));
}
