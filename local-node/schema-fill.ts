// Deterministic values for a JSON schema: what the simulated model puts in tool-call arguments
// and in json_schema answers (structured outputs). The value is a minimal instance that validates
// against the schema, for the subset of JSON Schema that tools and structured outputs use in
// practice (what zod, pydantic and the SDKs' helpers emit): type (or a list of types), enum,
// const, properties/required/additionalProperties, items/prefixItems with minItems/maxItems,
// string length and formats, numeric bounds (inclusive, exclusive, multipleOf), anyOf/oneOf,
// allOf, and $ref to $defs/definitions or to the root (recursive schemas). `pattern` is not
// honoured: a string matching an arbitrary regular expression cannot be made in general.
import type { Rng } from "./random";
import { phrase } from "./sim-text";

type Schema = Record<string, unknown>;

/** Below this depth optional branches are left out, so recursive schemas end. */
const MAX_DEPTH = 6;
/** A schema that recurses through required, non-nullable fields has no finite instance: stop here. */
const GIVE_UP_DEPTH = 3 * MAX_DEPTH;

const isObject = (v: unknown): v is Schema => !!v && typeof v === "object" && !Array.isArray(v);

function resolve(schema: Schema, root: Schema, seen = 0): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#") || seen > 16) return schema;
  let node: unknown = root;
  for (const part of ref.slice(1).split("/").filter(Boolean)) {
    node = isObject(node) ? node[decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  }
  if (!isObject(node)) return {};
  // Keywords beside $ref (allowed since draft 2019-09) apply too.
  const { $ref: _ref, ...siblings } = schema;
  return resolve({ ...node, ...siblings }, root, seen + 1);
}

/** allOf folded into one schema: properties and required merged, other keywords the last one wins. */
function flatten(schema: Schema, root: Schema): Schema {
  const parts = Array.isArray(schema.allOf) ? schema.allOf.filter(isObject).map((s) => flatten(resolve(s, root), root)) : [];
  if (!parts.length) return schema;
  const { allOf: _allOf, ...own } = schema;
  const merged: Schema = {};
  const properties: Schema = {};
  const required = new Set<string>();
  for (const part of [...parts, own]) {
    Object.assign(merged, part);
    if (isObject(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required)) for (const r of part.required) required.add(String(r));
  }
  if (Object.keys(properties).length) merged.properties = properties;
  if (required.size) merged.required = [...required];
  return merged;
}

function typeOf(schema: Schema): string {
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return (t.find((x) => x !== "null") as string | undefined) ?? "null";
  if (isObject(schema.properties) || isObject(schema.additionalProperties)) return "object";
  if (schema.items || schema.prefixItems) return "array";
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => typeof schema[k] === "number")) return "number";
  return "string";
}

const allowsNull = (schema: Schema) => schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"));

/** The schema of `name` in an object schema (a declared property, or what additionalProperties allows). */
function propertySchema(schema: Schema, name: string): Schema {
  const props = isObject(schema.properties) ? schema.properties : {};
  if (isObject(props[name])) return props[name] as Schema;
  return isObject(schema.additionalProperties) ? schema.additionalProperties : {};
}

/** A plain string property, where the generated answer text fits as it is. */
function takesText(schema: Schema): boolean {
  const string = schema.type === "string" || (Array.isArray(schema.type) && schema.type.includes("string"));
  return string && !schema.anyOf && !schema.oneOf && !schema.enum && !("const" in schema) && !schema.format && !schema.pattern && typeof schema.maxLength !== "number";
}

/**
 * The object of `schema`'s required properties (all properties when it lists none). With
 * `text`, the first plain string property holds it (the model's "answer").
 */
export function fillObject(schema: Schema, rng: Rng, root: Schema = schema, depth = 0, text?: string): Record<string, unknown> {
  schema = flatten(resolve(schema, root), root);
  const props = isObject(schema.properties) ? schema.properties : {};
  const names = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(props);
  const out: Record<string, unknown> = {};
  let textUsed = text === undefined;
  for (const name of names) {
    const prop = flatten(resolve(propertySchema(schema, name), root), root);
    if (!textUsed && takesText(prop)) {
      out[name] = text;
      textUsed = true;
    } else {
      out[name] = fillValue(prop, rng, root, depth + 1, name);
    }
  }
  return out;
}

/**
 * A value valid for `schema`, chosen by the rng. `name` hints at string values; `text`, when
 * given, is placed as the answer (the value itself when it is a plain string, else as in fillObject).
 */
export function fillValue(schema: Schema, rng: Rng, root: Schema = schema, depth = 0, name = "value", text?: string): unknown {
  schema = flatten(resolve(schema, root), root);
  if (depth > GIVE_UP_DEPTH) return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return rng.pick(schema.enum);
  const variants = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(variants) && variants.length) {
    const options = variants.filter(isObject).map((v) => flatten(resolve(v, root), root));
    // Deep in a recursive schema, null (when allowed) ends the recursion.
    const nullable = options.find(allowsNull);
    if (depth > MAX_DEPTH && nullable) return null;
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    const chosen = options.find((v) => v.type !== "null") ?? nullable ?? {};
    return fillValue({ ...rest, ...chosen }, rng, root, depth, name, text);
  }
  if (depth > MAX_DEPTH && allowsNull(schema)) return null;
  switch (typeOf(schema)) {
    case "integer":
      return integerValue(schema, rng);
    case "number":
      return numberValue(schema, rng);
    case "boolean":
      return rng.next() < 0.5;
    case "null":
      return null;
    case "array":
      return arrayValue(schema, rng, root, depth, name);
    case "object":
      return fillObject(schema, rng, root, depth, text);
    default:
      return text !== undefined && takesText(schema) ? text : stringValue(schema, rng, name);
  }
}

/** [min, max] of a numeric schema, exclusive bounds moved inwards by `step`. */
function bounds(schema: Schema, lo: number, hi: number, step: number): [number, number] {
  let min = typeof schema.minimum === "number" ? schema.minimum : -Infinity;
  let max = typeof schema.maximum === "number" ? schema.maximum : Infinity;
  // Draft 6+ (a number) and draft 4 (a boolean beside minimum/maximum).
  if (typeof schema.exclusiveMinimum === "number") min = Math.max(min, schema.exclusiveMinimum + step);
  else if (schema.exclusiveMinimum === true && Number.isFinite(min)) min += step;
  if (typeof schema.exclusiveMaximum === "number") max = Math.min(max, schema.exclusiveMaximum - step);
  else if (schema.exclusiveMaximum === true && Number.isFinite(max)) max -= step;
  if (!Number.isFinite(min)) min = Number.isFinite(max) ? Math.min(lo, max) : lo;
  if (!Number.isFinite(max)) max = Math.max(hi, min);
  return [min, Math.max(min, max)];
}

function integerValue(schema: Schema, rng: Rng): number {
  const [min, max] = bounds(schema, 1, 100, 1);
  const multiple = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : 1;
  const first = Math.ceil(min / multiple);
  const last = Math.max(first, Math.floor(max / multiple));
  return rng.int(first, last) * multiple;
}

function numberValue(schema: Schema, rng: Rng): number {
  const multiple = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  const [min, max] = bounds(schema, 0, 100, multiple ?? 0.01);
  if (multiple) {
    const first = Math.ceil(min / multiple);
    return rng.int(first, Math.max(first, Math.floor(max / multiple))) * multiple;
  }
  // Two decimals, kept inside the bounds.
  return Math.min(max, Math.max(min, Math.round((min + rng.next() * (max - min)) * 100) / 100));
}

function arrayValue(schema: Schema, rng: Rng, root: Schema, depth: number, name: string): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.filter(isObject) : Array.isArray(schema.items) ? schema.items.filter(isObject) : [];
  const items = isObject(schema.items) ? schema.items : {};
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  const max = typeof schema.maxItems === "number" ? schema.maxItems : Infinity;
  // One item unless the schema asks for more; none deep in a recursive schema.
  const wanted = depth > MAX_DEPTH ? min : Math.max(min, prefix.length, 1);
  const count = Math.min(wanted, max, Math.max(min, 5));
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const itemSchema = i < prefix.length ? prefix[i]! : items;
    let value = fillValue(itemSchema, rng, root, depth + 1, name);
    // uniqueItems: another pick of an enum, or a different string, when the first collides.
    for (let tries = 0; schema.uniqueItems && tries < 8 && out.some((v) => JSON.stringify(v) === JSON.stringify(value)); tries++) {
      value = fillValue(itemSchema, rng, root, depth + 1, `${name}${i}`);
    }
    out.push(value);
  }
  return out;
}

function formatted(format: unknown, rng: Rng): string | undefined {
  const digit = () => rng.int(0, 9);
  switch (format) {
    case "date":
      return `2026-0${rng.int(1, 9)}-1${digit()}`;
    case "date-time":
      return `2026-0${rng.int(1, 9)}-1${digit()}T1${digit()}:00:00Z`;
    case "time":
      return `1${digit()}:${rng.int(1, 5)}${digit()}:00Z`;
    case "duration":
      return `PT${rng.int(1, 59)}M`;
    case "email":
      return `${phrase(rng, 1)}@example.com`;
    case "hostname":
      return `${phrase(rng, 1)}.example.com`;
    case "ipv4":
      return `192.0.2.${rng.int(1, 254)}`;
    case "ipv6":
      return `2001:db8::${rng.int(1, 9999)}`;
    case "uri":
    case "url":
      return `https://example.com/${phrase(rng, 1)}`;
    case "uuid":
      return "00000000-0000-4000-8000-000000000000".replace(/0/g, () => "0123456789abcdef"[rng.int(0, 15)]!);
  }
  return undefined;
}

function stringValue(schema: Schema, rng: Rng, name: string): string {
  const special = formatted(schema.format, rng);
  if (special) return special;
  let text = /name|city|location|place|title/i.test(name) ? capitalise(phrase(rng, 2)) : phrase(rng, 3);
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  while (text.length < min) text += ` ${phrase(rng, 1)}`;
  return [...text].slice(0, max).join("");
}

const capitalise = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());
