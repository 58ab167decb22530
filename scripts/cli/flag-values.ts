// Flag values the CLI turns into service input: whole numbers, limits, USD amounts, lists. A value
// that is not one is a usage error naming the flag, raised before the database is touched.
import type { z } from "zod";
import { ZCreditAmount } from "../../server/kernel/money";
import { UsageError } from "./args";

/** The value that clears a limit or a cap. */
export const NONE = "none";

const asWholeNumber = (value: string): number | null => {
  const n = Number(value);
  return /^\d+$/.test(value) && Number.isSafeInteger(n) && n > 0 ? n : null;
};

/** A whole number above zero, or undefined when the flag was not given. */
export function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = asWholeNumber(value);
  if (n === null) throw new UsageError(`--${flag} must be a whole number above zero, got "${value}"`);
  return n;
}

/** A limit: a whole number above zero, "none" (null: no limit), or undefined when not given. */
export function limit(value: string | undefined, flag: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === NONE) return null;
  const n = asWholeNumber(value);
  if (n === null) throw new UsageError(`--${flag} must be a whole number above zero or "${NONE}", got "${value}"`);
  return n;
}

/** A USD amount as a decimal string, "none" (null: no cap), or undefined when not given. */
export function amount(value: string | undefined, flag: string): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === NONE) return null;
  const checked = ZCreditAmount.safeParse(value);
  if (!checked.success) {
    const why = checked.error.issues[0]?.message ?? "invalid";
    throw new UsageError(`--${flag} must be a USD amount such as 25 or 0.5, or "${NONE}" (${why}), got "${value}"`);
  }
  return value;
}

/** A comma-separated list; "" is the empty list. */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Checks input against a service's schema before connecting; a rejected field is a usage error
 * naming its flag (`flags` maps the schema's field names to flag names).
 */
export function checked<S extends z.ZodType>(schema: S, input: z.input<S>, flags: Record<string, string>): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail = result.error.issues
    .map((i) => {
      const field = String(i.path[0] ?? "");
      return `${flags[field] ? `--${flags[field]}` : field || "value"}: ${i.message}`;
    })
    .join("; ");
  throw new UsageError(detail);
}
