// SCIM filters (RFC 7644 §3.4.2.2) as database queries. scim2-parse-filter reads the filter; its
// syntax tree becomes a Prisma `where` here, over the few attributes each resource lists, so a
// filter is one indexed query and never a scan of every member in memory. `userName` and other
// case-insensitive attributes compare without case (the library's own in-memory filter() would
// not). An attribute or operator not listed is a 400 invalidFilter, not an empty answer.
import type { Filter } from "scim2-parse-filter";
import { scimErrors } from "./scim-error";

type StringCondition = { equals?: string; contains?: string; startsWith?: string; endsWith?: string; mode?: "insensitive" };

/** How one attribute is queried: a string column (with or without case) or a boolean one. */
export type FilterAttribute<W> =
  | { type: "string"; caseExact: boolean; where: (condition: StringCondition) => W; present: () => W }
  | { type: "boolean"; where: (value: boolean) => W };

/** The attributes a resource may be filtered on, by lower-case name (`emails.value`, `members.value`). */
export type FilterAttributes<W> = Record<string, FilterAttribute<W>>;

type Where<W> = W | { AND: Where<W>[] } | { OR: Where<W>[] } | { NOT: Where<W> };

const MAX_FILTER_LENGTH = 2000;

/** Parses `filter` and translates it; undefined when there is none. */
export async function filterWhere<W>(filter: string | null, attributes: FilterAttributes<W>, schemaUrn: string): Promise<Where<W> | undefined> {
  if (filter === null || filter.trim() === "") return undefined;
  if (filter.length > MAX_FILTER_LENGTH) throw scimErrors.invalidFilter(`The filter is longer than ${MAX_FILTER_LENGTH} characters.`);
  const { parse } = await import("scim2-parse-filter");
  let ast: Filter;
  try {
    ast = parse(filter);
  } catch (err) {
    throw scimErrors.invalidFilter(`The filter cannot be read: ${(err as Error).message}`);
  }
  return translate(ast, attributes, schemaUrn.toLowerCase() + ":", "");
}

function translate<W>(f: Filter, attributes: FilterAttributes<W>, urn: string, prefix: string): Where<W> {
  switch (f.op) {
    case "and":
      return { AND: (f as { filters: Filter[] }).filters.map((x) => translate(x, attributes, urn, prefix)) };
    case "or":
      return { OR: (f as { filters: Filter[] }).filters.map((x) => translate(x, attributes, urn, prefix)) };
    case "not":
      return { NOT: translate((f as { filter: Filter }).filter, attributes, urn, prefix) };
    case "[]": {
      // emails[value eq "x"]: the inner filter's attributes are the outer one's sub-attributes.
      const vp = f as { attrPath: string; valFilter: Filter };
      return translate(vp.valFilter, attributes, urn, `${attributeName(vp.attrPath, urn)}.`);
    }
    default: {
      const c = f as { op: string; attrPath: string; compValue?: unknown };
      const name = prefix + attributeName(c.attrPath, urn);
      // `emails eq "x"` means `emails.value eq "x"` (RFC 7644: a complex attribute's value sub-attribute).
      const attr = attributes[name] ?? attributes[`${name}.value`];
      if (!attr) throw scimErrors.invalidFilter(`Filtering on \`${c.attrPath}\` is not supported. Supported: ${Object.keys(attributes).join(", ")}.`);
      return compare(attr, c.op, c.compValue, c.attrPath);
    }
  }
}

function attributeName(attrPath: string, urn: string): string {
  const lower = attrPath.toLowerCase();
  return lower.startsWith(urn) ? lower.slice(urn.length) : lower;
}

function compare<W>(attr: FilterAttribute<W>, op: string, value: unknown, attrPath: string): Where<W> {
  if (attr.type === "boolean") {
    if (typeof value !== "boolean" || (op !== "eq" && op !== "ne")) {
      throw scimErrors.invalidFilter(`\`${attrPath}\` is a boolean: compare it with eq or ne and true or false.`);
    }
    return attr.where(op === "eq" ? value : !value);
  }
  if (op === "pr") return attr.present();
  if (typeof value !== "string") throw scimErrors.invalidFilter(`\`${attrPath}\` is a string: compare it with a quoted value.`);
  const mode = attr.caseExact ? {} : { mode: "insensitive" as const };
  switch (op) {
    case "eq":
      return attr.where({ equals: value, ...mode });
    case "ne":
      return { NOT: attr.where({ equals: value, ...mode }) };
    case "co":
      return attr.where({ contains: value, ...mode });
    case "sw":
      return attr.where({ startsWith: value, ...mode });
    case "ew":
      return attr.where({ endsWith: value, ...mode });
    default:
      throw scimErrors.invalidFilter(`The operator \`${op}\` is not supported on \`${attrPath}\`; use eq, ne, co, sw, ew or pr.`);
  }
}
