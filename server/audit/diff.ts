// What a change changed, as the audit log stores it: {field: {from, to}} for the fields whose
// value differs. A secret field never shows its value, only whether one is set ("[secret]") or
// not (null): the log is read by admins and exported as CSV, so it must never hold a key, a token
// or a password, not even an encrypted one.
export const SECRET = "[secret]";

export type FieldChange = { from: AuditValue; to: AuditValue };
export type AuditChanges = Record<string, FieldChange>;
export type AuditValue = string | number | boolean | null | AuditValue[] | { [k: string]: AuditValue };

/** Dates as ISO strings, decimals as their text, undefined as null: what JSON keeps exactly. */
export function auditValue(v: unknown): AuditValue {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(auditValue);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "object") {
    // Prisma's Decimal (and anything else with its own text form) is kept as that text.
    const own = (v as { toString?: () => string }).toString;
    if (own && own !== Object.prototype.toString) return String(v);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, auditValue(x)]));
  }
  return String(v);
}

const same = (a: AuditValue, b: AuditValue) => JSON.stringify(a) === JSON.stringify(b);
const masked = (v: unknown): AuditValue => (v === undefined || v === null || v === "" ? null : SECRET);

/**
 * The changed `fields` between two states of a record (an empty object for a record that did not
 * exist, or no longer does). `secretFields` are compared on their raw values (a replaced secret is
 * a change even if both are set) and written as "[secret]" or null.
 */
export function diff<T extends object>(
  before: Partial<T> | null,
  after: Partial<T> | null,
  fields: readonly (keyof T & string)[],
  secretFields: readonly (keyof T & string)[] = [],
): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of [...fields, ...secretFields]) {
    const a = before?.[field];
    const b = after?.[field];
    if (secretFields.includes(field)) {
      if (a !== b && !(a == null && b == null)) changes[field] = { from: masked(a), to: masked(b) };
      continue;
    }
    const from = auditValue(a);
    const to = auditValue(b);
    if (!same(from, to)) changes[field] = { from, to };
  }
  return changes;
}
