// Text a request carries must be storable and re-serialisable: PostgreSQL's text refuses NUL and
// ill-formed UTF-16 (a lone surrogate, which JSON's \ud800 escape can produce), and a document
// nested thousands deep overflows the stack of whatever walks it next (schema validation,
// JSON.stringify on the way to a node). Such input is a 400 naming where it is, before any work.
import { errors } from "../kernel/errors";

/** Deepest nesting of arrays and objects accepted in a JSON body. */
export const MAX_JSON_DEPTH = 64;

type WellFormed = { isWellFormed(): boolean };

function badText(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character (\\u0000)";
  if (!(s as unknown as WellFormed).isWellFormed()) return "contains a lone UTF-16 surrogate (not valid Unicode)";
  return null;
}

/** Throws 400 when a text value (a query or form field, a path parameter) cannot be stored as text. */
export function checkText(value: string, param: string): void {
  const problem = badText(value);
  if (problem) throw errors.invalidRequest(`\`${param}\` ${problem}.`, param, "invalid_value");
}

const pathOf = (parent: string, key: string | number) =>
  typeof key === "number" ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/** Walks a parsed JSON body (without recursion): every string and key checked, nesting bounded. */
export function checkJsonText(root: unknown): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: "", depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      const problem = badText(value);
      if (problem) throw errors.invalidRequest(`\`${path || "body"}\` ${problem}.`, path || null, "invalid_value");
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw errors.invalidRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (at \`${path}\`).`, path || null, "invalid_value");
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], path: pathOf(path, i), depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      checkText(key, pathOf(path, key));
      stack.push({ value: child, path: pathOf(path, key), depth: depth + 1 });
    }
  }
}
