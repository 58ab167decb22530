// One /v1 operation, declared once as data that no transport owns: where it lives (method,
// path), where its input comes from, its zod input and output schemas, who may call it and how
// it is priced, and the service that does the work (which, for a call to a model, returns the
// model call that the pipeline admits and runs). The pipeline behind both HTTP hosts and the
// tRPC procedures, the route table and the OpenAPI document are all derived from these declarations.
import type { z } from "zod";
import type { KeyPermission } from "../identity/keys/permissions";
import type { CallContext, Principal } from "../identity/principal";
import type { X402Use } from "../admission/x402/principal";
import type { Dialect } from "../kernel/errors";
import type { ErrorStatus } from "./errors";
import type { GuardedText } from "../guardrails/call-texts";

export type HttpMethod = "GET" | "POST" | "DELETE";

/**
 * Who may call: `none` needs no credential (health, signed image links); `api_key` any valid
 * credential of a workspace; `billed` a credential allowed to spend (dashboard members with a
 * role that may call models, every API key).
 */
export type Tier = "none" | "api_key" | "billed";

/** Where the request body goes: parsed as JSON, read as a multipart form, either, or none. */
export type BodySource =
  | { kind: "none" }
  | { kind: "json" }
  | { kind: "multipart"; files: readonly string[]; maxFileBytes: () => number }
  | { kind: "json_or_multipart"; files: readonly string[]; maxFileBytes: () => number };

/** How a call is priced (documentation, and what admission and payments reserve). */
export type Pricing =
  | { kind: "free" }
  | { kind: "metered"; unit: "tokens"; note: string }
  | { kind: "upfront"; unit: "characters" | "audio_seconds" | "images" | "video_seconds"; note: string };

/** What a successful answer carries. */
export type Produces =
  | { kind: "json"; status?: number }
  /** JSON, or server-sent events when the input asks to stream. */
  | { kind: "json_or_sse" }
  /** Bytes of the given media types (audio, a transcript as text, a stored file). */
  | { kind: "binary"; mediaTypes: readonly string[]; jsonToo?: boolean };

export type { CallContext };
/** The call's context for an operation that needs no credential: the principal is there when the caller sent one. */
export type AnyContext = Omit<CallContext, "principal"> & { principal: Principal | null };

type ContextOf<T extends Tier> = T extends "none" ? AnyContext : CallContext;

export type Operation<
  I extends z.ZodType = z.ZodType,
  R = unknown,
  T extends Tier = Tier,
  K extends "query" | "mutation" = "query" | "mutation",
> = {
  /** The tRPC path of the procedure ("chat.createCompletion"); the dashboard calls the same one. */
  id: string;
  method: HttpMethod;
  /** The URL path, with `{name}` for path parameters, which become input fields of that name. */
  path: string;
  summary: string;
  tags: readonly string[];
  kind: K;
  tier: T;
  /**
   * The group a restricted API key must have been given to call it (identity/keys/permissions.ts),
   * checked by the pipeline once the credential is known (pipeline/authenticate.ts); null for operations with no credential.
   */
  permission: T extends "none" ? null : KeyPermission;
  body: BodySource;
  /** Query parameters become input fields (strings; the schema coerces). */
  query?: boolean;
  /** Request headers that become input fields: `{ range: "range" }`. */
  headers?: Readonly<Record<string, string>>;
  /** Sets the input field `origin` to the gateway's public origin (links in the answer point there). */
  origin?: boolean;
  input: I;
  /** Schema of the JSON answer (for `json_or_sse`, of the non-streamed one; for `binary` with `jsonToo`, of the JSON form). */
  output?: z.ZodType;
  produces: Produces;
  /**
   * Error statuses this operation answers beyond what its tier (401, 402), input (400), body
   * (413) and path parameters (404) imply, each with what it means here (errors.ts).
   */
  errors?: Readonly<Partial<Record<ErrorStatus, string>>>;
  pricing: Pricing;
  /**
   * Callable with an x402 payment instead of a credential (when the operator enabled x402): the
   * scheme its price is paid in, a price known up front (`exact`) or metered up to a maximum
   * (`upto`); `read` for what x402 callers may read without paying (the catalog, a video job they
   * paid for, by its id).
   */
  x402?: X402Use;
  /**
   * Its answers may be kept by the response cache (server/response-cache/): every answer then
   * carries `x-gateway-cache` (hit, miss or bypass), and the call follows `x-gateway-cache` and
   * `x-gateway-cache-ttl` and the workspace's, plan's and key's defaults.
   */
  cached?: true;
  /**
   * Where its request's text is, for the guardrails a caller has (server/guardrails/): checked,
   * and redacted, before the call goes anywhere; its answer's text is checked on its way out.
   */
  guarded?: GuardedText;
  /** The API family of its answers and errors: absent for OpenAI's; `anthropic` for Anthropic's Messages API (errors `{type: "error", error: {type, message}}`, stream failures as an `error` event). */
  dialect?: Dialect;
  handler: (ctx: ContextOf<T>, input: z.output<I>) => Promise<R>;
};

export type AnyOperation = Operation<z.ZodType, unknown, Tier, "query" | "mutation">;

/** Declares an operation; the identity function, there to infer its types. */
export function operation<I extends z.ZodType, R, T extends Tier, K extends "query" | "mutation">(
  op: Operation<I, R, T, K>,
): Operation<I, R, T, K> {
  return op;
}
