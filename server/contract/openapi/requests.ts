// The request side of an operation in the document: path, header and query parameters and the
// JSON or multipart body, from its input schema, leaving out the fields the gateway sets itself.
import type { RouteConfig, ZodContentObject } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import type { AnyOperation } from "../operation";

type Shape = Record<string, z.ZodType>;

/** The object schema under an operation's input (`z.object({}).optional()` for "no input"). */
function inputObject(schema: z.ZodType): z.ZodObject {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.def.innerType as z.ZodType;
  if (!(s instanceof z.ZodObject)) throw new Error("an operation's input must be an object schema");
  return s;
}

/**
 * Form fields and query parameters arrive as strings that the schema coerces; `z.coerce` would
 * read as "nullable" (null coerces to 0). Documented as the number they must spell.
 */
function uncoerced(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return uncoerced(schema.def.innerType as z.ZodType).optional();
  if (schema instanceof z.ZodDefault) return uncoerced(schema.def.innerType as z.ZodType).default(schema.def.defaultValue as never);
  if ("coerce" in schema.def && schema.def.coerce) return schema.clone({ ...schema.def, coerce: false } as typeof schema.def);
  return schema;
}

const BINARY = z.string().meta({ format: "binary" });

/** An uploaded file, as the form carries it (the gateway hands services an UploadedFile). */
function fileField(schema: z.ZodType | undefined): z.ZodType {
  return schema === undefined || schema.safeParse(undefined).success ? BINARY.optional() : BINARY;
}

/** A new object of `shape`, keeping whether the input lets unknown fields through. */
function objectLike(source: z.ZodObject, shape: Shape): z.ZodObject {
  const catchall = source.def.catchall as z.ZodType | undefined;
  return catchall ? z.object(shape).catchall(catchall) : z.object(shape);
}

export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** The response cache's request headers, on the operations whose answers it keeps (docs/CACHE.md). */
const CACHE_HEADERS: Shape = {
  "X-Gateway-Cache": z
    .enum(["use", "refresh", "bypass"])
    .optional()
    .meta({ description: "The response cache: `use` (read, and store a miss), `refresh` (store without reading), `bypass`. Absent: the key's, plan's or workspace's default." }),
  "X-Gateway-Cache-Ttl": z
    .string()
    .regex(/^\d+$/)
    .optional()
    .meta({ description: "Seconds the stored answer lives: 1 to the workspace's maximum (default 86400); absent: the workspace's lifetime." }),
};

const headerName = (name: string) => name.replace(/(^|-)(\w)/g, (_m, sep: string, c: string) => sep + c.toUpperCase());

export function requestOf(op: AnyOperation): { request: NonNullable<RouteConfig["request"]>; hasInput: boolean } {
  const input = inputObject(op.input);
  const shape = input.shape as Shape;
  const params = pathParams(op.path);
  const headerFields = Object.keys(op.headers ?? {});
  // Fields the gateway sets itself: path parameters, header values, its public origin.
  const set = new Set([...params, ...headerFields, ...(op.origin ? ["origin"] : [])]);
  const fields: Shape = Object.fromEntries(Object.entries(shape).filter(([k]) => !set.has(k)).map(([k, v]) => [k, uncoerced(v)]));
  const request: NonNullable<RouteConfig["request"]> = {};
  if (params.length) request.params = z.object(Object.fromEntries(params.map((p) => [p, shape[p] ?? z.string()])));
  const headers: Shape = Object.fromEntries(headerFields.map((f) => [headerName(op.headers![f]!), (shape[f] ?? z.string()).optional()]));
  if (op.cached) Object.assign(headers, CACHE_HEADERS);
  if (Object.keys(headers).length) request.headers = z.object(headers);
  const body = op.body;
  if (body.kind === "none") {
    if (op.query && Object.keys(fields).length) request.query = z.object(fields);
  } else {
    const content: ZodContentObject = {};
    if (body.kind === "json" || body.kind === "json_or_multipart") content["application/json"] = { schema: objectLike(input, fields) };
    if (body.kind === "multipart" || body.kind === "json_or_multipart") {
      const form: Shape = { ...fields };
      for (const f of body.files) form[f] = fileField(shape[f]);
      content["multipart/form-data"] = { schema: objectLike(input, form) };
    }
    request.body = { required: true, content };
  }
  return { request, hasInput: params.length + headerFields.length > 0 || body.kind !== "none" || !!request.query };
}
