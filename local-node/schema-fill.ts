// Deterministic values for a JSON schema: what the simulated model puts in tool-call arguments
// and in json_schema answers. Handles the subset of JSON Schema that tools use in practice:
// type (or a list of types), enum, const, properties/required, items, anyOf/oneOf, $ref to $defs.
import type { Rng } from "./random";
import { phrase } from "./sim-text";

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => !!v && typeof v === "object" && !Array.isArray(v);

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) node = isObject(node) ? node[part] : undefined;
  return isObject(node) ? node : {};
}

function typeOf(schema: Schema): string {
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return (t.find((x) => x !== "null") as string | undefined) ?? "null";
  if (isObject(schema.properties)) return "object";
  if (schema.items) return "array";
  return "string";
}

function bounded(schema: Schema, lo: number, hi: number): [number, number] {
  const min = typeof schema.minimum === "number" ? schema.minimum : lo;
  const max = typeof schema.maximum === "number" ? schema.maximum : Math.max(hi, min);
  return [min, Math.max(min, max)];
}

/** The object of `schema`'s required properties (all properties when it lists none). */
export function fillObject(schema: Schema, rng: Rng, root: Schema = schema, depth = 0, text?: string): Record<string, unknown> {
  const props = isObject(schema.properties) ? schema.properties : {};
  const names = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(props);
  const out: Record<string, unknown> = {};
  let textUsed = false;
  for (const name of names) {
    const prop = isObject(props[name]) ? (props[name] as Schema) : {};
    const useText: boolean = !textUsed && text !== undefined && typeOf(resolve(prop, root)) === "string" && !prop.enum;
    out[name] = useText ? text : fillValue(prop, rng, root, depth + 1, name);
    textUsed ||= useText;
  }
  return out;
}

/** A value valid for `schema`, chosen by the rng. `name` hints at string values. */
export function fillValue(schema: Schema, rng: Rng, root: Schema = schema, depth = 0, name = "value"): unknown {
  schema = resolve(schema, root);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return rng.pick(schema.enum);
  const variants = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(variants) && variants.length) {
    const usable = variants.filter((v) => isObject(v) && v.type !== "null") as Schema[];
    return fillValue(usable[0] ?? {}, rng, root, depth, name);
  }
  if (depth > 6) return null;
  switch (typeOf(schema)) {
    case "integer": {
      const [min, max] = bounded(schema, 1, 100);
      return rng.int(Math.ceil(min), Math.floor(max));
    }
    case "number": {
      const [min, max] = bounded(schema, 0, 100);
      return Math.round((min + rng.next() * (max - min)) * 100) / 100;
    }
    case "boolean":
      return rng.next() < 0.5;
    case "null":
      return null;
    case "array": {
      const items = isObject(schema.items) ? schema.items : {};
      const count = Math.max(typeof schema.minItems === "number" ? schema.minItems : 1, 1);
      return Array.from({ length: Math.min(count, 5) }, () => fillValue(items, rng, root, depth + 1, name));
    }
    case "object":
      return fillObject(schema, rng, root, depth);
    default:
      return stringValue(schema, rng, name);
  }
}

function stringValue(schema: Schema, rng: Rng, name: string): string {
  switch (schema.format) {
    case "date":
      return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}`;
    case "date-time":
      return `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}T1${rng.int(0, 9)}:00:00Z`;
    case "email":
      return `${phrase(rng, 1)}@example.com`;
    case "uri":
    case "url":
      return `https://example.com/${phrase(rng, 1)}`;
    case "uuid":
      return "00000000-0000-4000-8000-000000000000".replace(/0/g, () => "0123456789abcdef"[rng.int(0, 15)]!);
  }
  let text = /name|city|location|place|title/i.test(name) ? capitalise(phrase(rng, 2)) : phrase(rng, 3);
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  while (text.length < min) text += ` ${phrase(rng, 1)}`;
  return text.slice(0, max);
}

const capitalise = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());
