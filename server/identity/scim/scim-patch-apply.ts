// PATCH (RFC 7644 §3.5.2) as scim-patch applies it: the current resource as SCIM JSON in, the
// patched one out, which the resource's module then checks and writes like a PUT. Identity
// providers differ in small ways that the library takes as they are (Okta's replace without a
// path, Entra's filters in paths); Entra's capitalised ops ("Replace") are lower-cased first.
// Booleans Entra sends as "True"/"False" are coerced by the resource's schema afterwards.
import { SCHEMA } from "./scim-schemas";
import { ScimError, scimErrors, type ScimType } from "./scim-error";

type Resource = { schemas: string[]; meta: { resourceType: string; created: string; lastModified: string } };

const MAX_OPERATIONS = 1000;

export async function applyPatch<T extends Resource>(resource: T, body: unknown): Promise<T> {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw scimErrors.invalidSyntax("The body must be a PatchOp object.");
  const { schemas, Operations } = body as { schemas?: unknown; Operations?: unknown };
  if (!Array.isArray(schemas) || !schemas.includes(SCHEMA.patch)) {
    throw scimErrors.invalidSyntax(`A PATCH body's \`schemas\` must hold "${SCHEMA.patch}".`);
  }
  if (!Array.isArray(Operations) || Operations.length === 0) throw scimErrors.invalidSyntax("A PATCH body needs a non-empty `Operations` array.");
  if (Operations.length > MAX_OPERATIONS) throw new ScimError(413, `At most ${MAX_OPERATIONS} operations in one PATCH.`);
  const operations = Operations.map((o: unknown, i: number) => {
    if (!o || typeof o !== "object" || typeof (o as { op?: unknown }).op !== "string") throw scimErrors.invalidSyntax(`Operations[${i}] needs an \`op\`.`);
    return { ...(o as Record<string, unknown>), op: (o as { op: string }).op.toLowerCase() };
  });
  const lib = await import("scim-patch");
  try {
    lib.patchBodyValidation({ schemas: [SCHEMA.patch], Operations: operations } as Parameters<typeof lib.patchBodyValidation>[0]);
    let patched = structuredClone(resource) as unknown as Parameters<typeof lib.scimPatch>[0];
    for (const op of operations) {
      patched = removeByValues(patched as unknown as Record<string, unknown>, op) ? patched : lib.scimPatch(patched, [op] as Parameters<typeof lib.scimPatch>[1]);
    }
    return patched as unknown as T;
  } catch (err) {
    if (err instanceof lib.ScimError) throw new ScimError(400, err.message, ((err.scimCode as ScimType | undefined) ?? "invalidSyntax"));
    if (err instanceof ScimError) throw err;
    // The library reports some malformed paths with a plain error.
    throw scimErrors.invalidSyntax(`The PATCH cannot be applied: ${(err as Error).message}`);
  }
}

/**
 * Entra removes group members with `{op:"remove", path:"members", value:[{value:id}]}`. scim-patch
 * compares the whole member objects (ours also carry display and $ref), so it would remove
 * nothing: such a removal is applied here, by the members' values, and removing someone who is
 * not a member is no error. Answers whether it handled the operation.
 */
function removeByValues(resource: Record<string, unknown>, op: Record<string, unknown>): boolean {
  if (op.op !== "remove" || typeof op.path !== "string" || !/^[A-Za-z]+$/.test(op.path) || !Array.isArray(op.value)) return false;
  const values = op.value.map((v) => (v && typeof v === "object" ? (v as { value?: unknown }).value : undefined));
  if (values.some((v) => typeof v !== "string")) return false;
  const key = Object.keys(resource).find((k) => k.toLowerCase() === (op.path as string).toLowerCase());
  const current = key ? resource[key] : undefined;
  if (!key || !Array.isArray(current)) return true;
  resource[key] = current.filter((item) => !values.includes((item as { value?: unknown }).value));
  return true;
}
