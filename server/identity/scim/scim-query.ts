// The query parameters of a SCIM list or read (RFC 7644 §3.4.2): paging by a 1-based
// `startIndex` and a `count`, and the `attributes` / `excludedAttributes` that narrow what each
// resource answers (Entra asks for Groups with `excludedAttributes=members`).
import { MAX_RESULTS } from "./scim-schemas";
import { scimErrors } from "./scim-error";

export type Paging = { skip: number; take: number; startIndex: number };

/** The page a list asks for: a startIndex below 1 counts as 1, a count above the maximum is cut to it. */
export function paging(params: URLSearchParams): Paging {
  const startIndex = Math.max(1, intParam(params, "startIndex") ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, intParam(params, "count") ?? 100));
  return { skip: startIndex - 1, take: count, startIndex };
}

function intParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^-?\d{1,9}$/.test(raw)) throw scimErrors.invalidValue(`\`${name}\` must be an integer; got ${JSON.stringify(raw)}.`);
  return Number(raw);
}

/** The names in a comma-separated attribute list, lower case, without a schema's URN. */
const names = (raw: string | null) =>
  (raw ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase().replace(/^urn:.*:/, ""))
    .filter(Boolean);

/** Applies `attributes` / `excludedAttributes` to a resource; `id`, `schemas` and `meta` are always answered. */
export function projection(params: URLSearchParams): <T extends Record<string, unknown>>(resource: T) => Partial<T> {
  const only = names(params.get("attributes")).map((n) => n.split(".")[0]!);
  const excluded = names(params.get("excludedAttributes")).map((n) => n.split(".")[0]!);
  if (!only.length && !excluded.length) return (r) => r;
  const always = new Set(["id", "schemas", "meta"]);
  return (resource) =>
    Object.fromEntries(
      Object.entries(resource).filter(([k]) => {
        const key = k.toLowerCase();
        if (always.has(key)) return true;
        if (only.length) return only.includes(key);
        return !excluded.includes(key);
      }),
    ) as Partial<typeof resource>;
}
