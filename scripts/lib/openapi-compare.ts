// Compares the gateway's OpenAPI document with OpenAI's, for every /v1 operation both have
// (matched by method and path, path parameters by position): the JSON answer of each must give
// clients everything OpenAI's document promises them (its required fields, present and required;
// types that fit; no null where it never has one; no enum value it does not list), and each
// request body must not require what OpenAI's leaves optional nor type a top-level field unlike
// it. Returns the findings; which of them are deliberate is the caller's to say
// (scripts/check-openai-schema.ts).

export type Json = Record<string, unknown>;
export type Doc = { paths: Record<string, Record<string, Json>>; components?: { schemas?: Record<string, Json> }; servers?: { url: string }[]; info?: Json };

export type Kind = "missing" | "optional" | "type" | "nullable" | "enum" | "variant" | "extra" | "request-required" | "request-type";

/** The kinds that only inform (an extension of ours where OpenAI allows more fields). */
const INFORMATIVE = new Set<Kind>(["extra"]);

export type Finding = { kind: Kind; at: string; text: string; where: Set<string>; informative: boolean };

/** A schema with its document (refs are resolved in the document they belong to). */
type Side = { doc: Doc; schema: unknown };

type Shape = {
  types: Set<string>;
  nullable: boolean;
  enum?: unknown[];
  properties?: Record<string, unknown>;
  required: Set<string>;
  items?: unknown;
  variants?: unknown[];
  closed: boolean;
};

function deref(doc: Doc, schema: unknown, seen = 0): Json {
  if (typeof schema !== "object" || schema === null) return {};
  const s = schema as Json;
  if (typeof s.$ref !== "string" || seen > 32) return s;
  const target = s.$ref.replace(/^#\//, "").split("/").reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  const { $ref: _ref, ...siblings } = s;
  return { ...deref(doc, target, seen + 1), ...siblings };
}

/** The component a schema refers to, when it is a $ref (for the name of a finding's root). */
const refName = (schema: unknown) => {
  const ref = (schema as Json | undefined)?.$ref;
  return typeof ref === "string" ? ref.split("/").pop()! : undefined;
};

const isNull = (doc: Doc, s: unknown) => {
  const d = deref(doc, s);
  return d.type === "null" || (Array.isArray(d.type) && d.type.length === 1 && d.type[0] === "null");
};

function shapeOf(doc: Doc, schema: unknown): Shape {
  const s = deref(doc, schema);
  const shape: Shape = { types: new Set(), nullable: s.nullable === true, required: new Set((s.required as string[] | undefined) ?? []), closed: s.additionalProperties === false };
  if (Array.isArray(s.type)) for (const t of s.type as string[]) t === "null" ? (shape.nullable = true) : shape.types.add(t);
  else if (s.type === "null") shape.nullable = true;
  else if (typeof s.type === "string") shape.types.add(s.type);
  if ("const" in s) shape.enum = [s.const];
  else if (Array.isArray(s.enum)) {
    shape.enum = (s.enum as unknown[]).filter((v) => v !== null);
    if (shape.enum.length < s.enum.length) shape.nullable = true;
  }
  if (s.properties) shape.properties = { ...(s.properties as Json) };
  if (s.items) shape.items = s.items;
  if (s.type === undefined && s.properties) shape.types.add("object");
  for (const part of (s.allOf as unknown[] | undefined) ?? []) merge(shape, shapeOf(doc, part));
  const alternatives = [...((s.anyOf as unknown[] | undefined) ?? []), ...((s.oneOf as unknown[] | undefined) ?? [])];
  if (alternatives.length) {
    const rest = alternatives.filter((a) => !isNull(doc, a));
    if (rest.length < alternatives.length) shape.nullable = true;
    const shapes = rest.map((a) => shapeOf(doc, a));
    const scalar = shapes.every((v) => !v.properties && !v.items && !v.variants && v.types.size && ![...v.types].some((t) => t === "object" || t === "array"));
    if (rest.length === 1 || (scalar && shapes.length)) {
      // One alternative besides null, or scalars only: one shape (an enum only if every one has one).
      const all = shapes.every((v) => v.enum);
      for (const v of shapes) merge(shape, v, true);
      if (!all) delete shape.enum;
    } else if (rest.length) shape.variants = rest;
  }
  return shape;
}

function merge(into: Shape, from: Shape, union = false): void {
  for (const t of from.types) into.types.add(t);
  into.nullable ||= from.nullable;
  if (from.enum) into.enum = union && into.enum ? [...new Set([...into.enum, ...from.enum])] : from.enum;
  if (from.properties) into.properties = { ...into.properties, ...from.properties };
  for (const r of from.required) into.required.add(r);
  into.items ??= from.items;
  into.closed ||= from.closed;
  if (from.variants) into.variants = from.variants;
}

/** Where a finding is: a named schema of OpenAI's (an array's items, a union's variant) starts a path of its own. */
const named = (schema: unknown, at: string) => refName(schema) ?? at;

const fits = (type: string, accepted: Set<string>) => accepted.has(type) || (type === "integer" && accepted.has("number"));

const show = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");

/**
 * Compares what one side produces with what the other accepts: for answers, the gateway produces
 * and OpenAI's document describes what clients may rely on; for requests, clients produce what
 * OpenAI's document allows and the gateway accepts.
 */
class Comparison {
  findings: Omit<Finding, "where" | "informative">[] = [];
  constructor(
    private readonly answer: boolean,
    private readonly depth: number,
    /** Whether null can be sent at all (not in a form). */
    private readonly nulls = true,
  ) {}

  private add(kind: Kind, at: string, text: string) {
    this.findings.push({ kind, at, text });
  }

  /** `nullChecked`: whether null was already compared (a union's variants leave null to the union). */
  compare(producer: Side, consumer: Side, at: string, level = 0, nullChecked = false): void {
    if (level > this.depth) return;
    const p = shapeOf(producer.doc, producer.schema);
    const c = shapeOf(consumer.doc, consumer.schema);
    const [ours, theirs] = this.answer ? ["ours", "OpenAI's"] : ["OpenAI's", "ours"];
    if (!nullChecked && this.nulls && p.nullable && !c.nullable && (c.types.size || c.variants)) this.add("nullable", at, `${ours} may be null, ${theirs} never is`);
    // A schema that says nothing (`{}`): what the node sends, passed through unseen.
    if (!p.types.size && !p.properties && !p.variants && !p.enum && !p.items) return;
    if (p.variants) {
      for (const v of p.variants) this.compare({ doc: producer.doc, schema: v }, consumer, at, level, true);
      return;
    }
    if (c.variants) return this.compareWithVariant(producer, p, consumer, c, at, level);
    if (c.types.size && p.types.size) {
      const misfit = [...p.types].filter((t) => !fits(t, c.types));
      if (misfit.length) return this.add(this.answer ? "type" : "request-type", at, `${ours} ${[...p.types].join("|")}, ${theirs} ${[...c.types].join("|")}`);
    }
    if (c.enum) {
      if (!p.enum) {
        if (this.answer) this.add("enum", at, `${ours} any value, ${theirs} one of ${show(c.enum)}`);
      } else {
        const outside = p.enum.filter((v) => !c.enum!.some((e) => JSON.stringify(e) === JSON.stringify(v)));
        if (outside.length && this.answer) this.add("enum", at, `${ours} ${show(outside)} not among ${theirs} ${show(c.enum)}`);
      }
    }
    if (c.properties || p.properties) this.compareObjects(producer, p, consumer, c, at, level);
    if (p.items && c.items) this.compare({ doc: producer.doc, schema: p.items }, { doc: consumer.doc, schema: c.items }, named(c.items, `${at}[]`), level + 1);
  }

  private compareObjects(producer: Side, p: Shape, consumer: Side, c: Shape, at: string, level: number): void {
    const pp = p.properties ?? {};
    const cp = c.properties ?? {};
    const path = (k: string) => (at ? `${at}.${k}` : k);
    for (const k of c.required) {
      if (!(k in pp)) this.add(this.answer ? "missing" : "request-required", path(k), this.answer ? "required by OpenAI, absent from ours" : "required by ours, absent from OpenAI's");
      else if (!p.required.has(k)) this.add(this.answer ? "optional" : "request-required", path(k), this.answer ? "required by OpenAI, optional in ours" : "required by ours, optional in OpenAI's");
    }
    for (const k of Object.keys(pp)) {
      if (k in cp) this.compare({ doc: producer.doc, schema: pp[k] }, { doc: consumer.doc, schema: cp[k] }, path(k), level + 1);
      else if (this.answer) this.add("extra", path(k), c.closed ? "ours only, and OpenAI's object allows no other field" : "ours only (OpenAI's object does not name it)");
    }
  }

  /** Compares with the variant of a union that fits: the one with the same `type`/`object`, else the closest. */
  private compareWithVariant(producer: Side, p: Shape, consumer: Side, c: Shape, at: string, level: number): void {
    const variants = c.variants!.map((v) => ({ schema: v, shape: shapeOf(consumer.doc, v) }));
    for (const key of ["type", "object"]) {
      const value = p.properties?.[key] ? shapeOf(producer.doc, p.properties[key]).enum : undefined;
      if (!value || value.length !== 1) continue;
      const same = variants.filter((v) => v.shape.properties?.[key] && shapeOf(consumer.doc, v.shape.properties[key]).enum?.includes(value[0]));
      if (same.length === 1) return this.compare(producer, { doc: consumer.doc, schema: same[0]!.schema }, named(same[0]!.schema, at), level, true);
      if (same.length > 1) return this.compareWithClosest(producer, consumer, same, at, level);
      if (variants.some((v) => v.shape.properties?.[key])) {
        return this.add("variant", at, `no variant of ${this.answer ? "OpenAI's" : "ours"} has ${key} ${JSON.stringify(value[0])}`);
      }
    }
    this.compareWithClosest(producer, consumer, variants, at, level);
  }

  private compareWithClosest(producer: Side, consumer: Side, variants: { schema: unknown }[], at: string, level: number): void {
    let best: Comparison | undefined;
    for (const v of variants) {
      const trial = new Comparison(this.answer, this.depth, this.nulls);
      trial.compare(producer, { doc: consumer.doc, schema: v.schema }, named(v.schema, at), level, true);
      // Differences first, then fields only ours has: the variant that names most of ours wins a tie.
      const cost = (x: Comparison) => x.findings.reduce((sum, f) => sum + (INFORMATIVE.has(f.kind) ? 1 : 1000), 0);
      if (!best || cost(trial) < cost(best)) best = trial;
    }
    if (best) this.findings.push(...best.findings);
  }
}

const METHODS = ["get", "post", "delete", "put", "patch"];
const normalized = (path: string) => path.replace(/\{[^}]+\}/g, "{}");

/** The JSON answer of a successful call (200, else the first 2xx with JSON). */
function jsonAnswer(op: Json): unknown {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const statuses = Object.keys(responses).filter((s) => /^2\d\d$/.test(s)).sort();
  for (const status of statuses) {
    const schema = ((responses[status]!.content as Record<string, Json> | undefined)?.["application/json"] as Json | undefined)?.schema;
    if (schema) return schema;
  }
  return undefined;
}

function requestBodies(op: Json): Record<string, unknown> {
  const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
  return Object.fromEntries(Object.entries(content).map(([type, c]) => [type, c.schema]));
}

/** Every difference between the documents' shared /v1 operations (and error bodies), once each, with where it was seen. */
export function compareDocuments(ours: Doc, theirs: Doc): { matched: string[]; findings: Finding[] } {
  const prefix = new URL(theirs.servers?.[0]?.url ?? "https://api.openai.com/v1").pathname.replace(/\/$/, "");
  const theirOps = new Map<string, Json>();
  for (const [path, item] of Object.entries(theirs.paths)) for (const m of METHODS) if (item[m]) theirOps.set(`${m.toUpperCase()} ${normalized(prefix + path)}`, item[m]!);

  const findings = new Map<string, Finding>();
  const matched: string[] = [];
  const record = (where: string, list: Omit<Finding, "where" | "informative">[]) => {
    for (const f of list) {
      const key = `${f.kind} ${f.at}`;
      const known = findings.get(key) ?? { ...f, where: new Set<string>(), informative: INFORMATIVE.has(f.kind) };
      known.where.add(where);
      findings.set(key, known);
    }
  };

  for (const [path, item] of Object.entries(ours.paths)) {
    if (!path.startsWith("/v1/")) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const name = `${m.toUpperCase()} ${path}`;
      const their = theirOps.get(`${m.toUpperCase()} ${normalized(path)}`);
      if (!their) continue;
      matched.push(name);
      const theirAnswer = jsonAnswer(their);
      const ourAnswer = jsonAnswer(op);
      if (theirAnswer && ourAnswer) {
        const cmp = new Comparison(true, 12);
        cmp.compare({ doc: ours, schema: ourAnswer }, { doc: theirs, schema: theirAnswer }, refName(theirAnswer) ?? `${name} answer`);
        record(name, cmp.findings);
      }
      const theirBodies = requestBodies(their);
      for (const [type, ourBody] of Object.entries(requestBodies(op))) {
        const theirBody = theirBodies[type];
        if (!theirBody) continue;
        // Requests: the top-level fields only (what a field holds is the node's to judge).
        const cmp = new Comparison(false, 1, type === "application/json");
        cmp.compare({ doc: theirs, schema: theirBody }, { doc: ours, schema: ourBody }, `${refName(theirBody) ?? name + " request"} (${type})`);
        record(name, cmp.findings);
      }
    }
  }

  // The error body every operation answers with.
  const ourError = ours.components?.schemas?.Error;
  const theirError = theirs.components?.schemas?.ErrorResponse;
  if (ourError && theirError) {
    const cmp = new Comparison(true, 12);
    cmp.compare({ doc: ours, schema: ourError }, { doc: theirs, schema: theirError }, "ErrorResponse");
    record("every error answer", cmp.findings);
    matched.push("the error body (Error, OpenAI's ErrorResponse)");
  }

  return { matched, findings: [...findings.values()].sort((a, b) => a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind)) };
}
