// The `schema` guardrail: an answer must be JSON valid against the guardrail's JSON Schema (draft
// 2020-12 keywords and earlier ones, formats included), checked with Ajv. A schema that does not
// compile is refused when the guardrail is saved. Loaded only where a schema guardrail is (Ajv is
// not small).
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Finding } from "../finding";

let ajv: Ajv2020 | undefined;

function instance(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: false, strict: false, validateSchema: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  }
  return ajv;
}

/** The schema's validator, or why it is not a schema. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction | string {
  try {
    return instance().compile(schema);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Nothing when the text is JSON the schema accepts; else one finding saying why. */
export function checkJson(validate: ValidateFunction, text: string): Finding[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [{ rule: "invalid_json", start: 0, end: 0 }];
  }
  if (validate(value)) return [];
  const first = validate.errors?.[0];
  return [{ rule: `schema:${first?.instancePath || "/"} ${first?.message ?? "is not valid"}`.slice(0, 200), start: 0, end: 0 }];
}
