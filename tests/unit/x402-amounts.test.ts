// x402 amounts: a USD price becomes the token's atomic units rounded up (a payer never pays less
// than the price, and less than one unit more), and atomic units convert back to USD exactly; an
// upto call that cost nothing settles nothing (no transaction).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromAtomic, toAtomic } from "../../server/admission/x402/amounts";
import { settleOnChain } from "../../server/admission/x402/settlement";
import { money } from "../../server/kernel/money";

const usd = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }))
  .map(([whole, fraction]) => `${whole}.${fraction.toString().padStart(18, "0")}`);

describe("x402 amounts", () => {
  it("rounds a price up to the next atomic unit, never down, never a whole unit too much", () => {
    fc.assert(
      fc.property(usd, fc.integer({ min: 0, max: 18 }), (price, decimals) => {
        const atomic = toAtomic(price, decimals);
        const back = fromAtomic(atomic, decimals);
        expect(back.gte(money(price))).toBe(true);
        expect(back.minus(money(price)).lt(money(1).dividedBy(money(10).pow(decimals)))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("converts exactly, with the usual cases spelled out", () => {
    expect(toAtomic("0.000021", 6)).toBe(21n);
    expect(toAtomic("0.0000210000001", 6)).toBe(22n);
    expect(toAtomic("0", 6)).toBe(0n);
    expect(toAtomic("1.5", 6)).toBe(1_500_000n);
    expect(fromAtomic(1_500_001n, 6).toFixed()).toBe("1.500001");
    expect(fromAtomic("123456789012345678901234567890", 18).toFixed()).toBe("123456789012.34567890123456789");
    expect(() => toAtomic("-0.1", 6)).toThrow();
  });

  it("settles nothing for an amount of zero: success, no transaction, no facilitator asked", async () => {
    const refuse = () => {
      throw new Error("the facilitator must not be asked");
    };
    const ps = { server: { settlePayment: refuse }, config: {} } as never;
    const requirements = { scheme: "upto", network: "eip155:84532" as const, asset: "0x0", amount: "1000", payTo: "0x1", maxTimeoutSeconds: 60, extra: {} };
    const settled = await settleOnChain(ps, { id: "p", payer: "0xabc", scheme: "upto", payment: {} as never, requirements }, 0n);
    expect(settled).toEqual({ amount: 0n, response: { success: true, transaction: "", network: "eip155:84532", payer: "0xabc", amount: "0" } });
  });
});
