// Zod pieces that several /v1 answers share: Unix-second times, a page of a list, the answer to a
// deletion, and the error body every failed call is answered with. Each operation's own answer
// schema sits beside its request schema, in its domain.
//
// Convention of every answer schema: `z.object` / `z.strictObject` is an object the gateway builds
// itself, with exactly these fields (the OpenAPI document says `additionalProperties: false`);
// `z.looseObject` is one that carries a node's fields through, so fields beyond those named may
// appear.
import { z } from "zod";

export const unixSeconds = z.number().int().describe("Unix seconds");

/** A page of a list with cursors (`after` = the previous page's `last_id`). */
export const listPage = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    object: z.literal("list"),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });

/** The answer to deleting an object: `object` names what was deleted (e.g. `response.deleted`). */
export const deletedAnswer = <O extends string>(object: O) => z.strictObject({ id: z.string(), object: z.literal(object), deleted: z.boolean() });

/** The error answers of the operations in Anthropic's format (`/v1/messages`), as Anthropic's API gives them. */
export const ZAnthropicErrorBody = z.strictObject({
  type: z.literal("error"),
  error: z.strictObject({
    type: z.string().describe("`invalid_request_error`, `authentication_error`, `billing_error`, `permission_error`, `not_found_error`, `request_too_large`, `rate_limit_error`, `api_error`, `timeout_error` or `overloaded_error`"),
    message: z.string().describe("Human-readable text"),
  }),
  request_id: z.string().describe("The request's id (also in `x-request-id`)"),
});

/** Every error answer (part 2.1 of the API reference). */
export const ZErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string().describe("Machine-readable code, e.g. `invalid_api_key`, `model_not_found`, `insufficient_quota`"),
    message: z.string().describe("Human-readable text"),
    param: z.string().nullable().describe("The offending parameter, null when none"),
    type: z.string().describe("Error type, e.g. `invalid_request_error`, `server_error`, `insufficient_quota`"),
  }),
});
