// What a route is, as written by hand (CLI `route set --file`, the dashboard, tRPC): a name callers
// use as `model`, a strategy, its targets, conditions tried before the strategy, and what a
// failure may retry. Validated with zod; the checks that need the catalog, the nodes and the
// other routes (unknown models, cycles, CEL that does not compile) are in route-store.ts.
import { z } from "zod";

export const STRATEGIES = ["weighted", "fallback", "least-latency", "lowest-cost", "least-busy"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Failures a route may retry on another target. */
export const RETRY_ON = ["429", "5xx", "timeout", "context_length"] as const;
export type RetryOn = (typeof RETRY_ON)[number];

/** A route's name: what callers send as `model`. Like a model id, never containing whitespace. */
export const ZRouteName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/, "a route name is letters, digits and . _ : / @ - (no spaces)");

const ZTarget = z
  .object({
    /** A catalog model id, or another route's name (nesting). */
    model: z.string().trim().min(1).max(200),
    /** A node id or name: only that node serves this target. */
    node: z.string().trim().min(1).max(200).optional(),
    weight: z.number().int().min(0).max(1_000_000).default(1),
    /** Per-target timeouts: to the node's first byte, and for the whole attempt (ms). */
    timeout_ms: z.number().int().min(1).max(600_000).optional(),
    first_byte_timeout_ms: z.number().int().min(1).max(600_000).optional(),
  })
  .strict();

const ZRetry = z
  .object({
    /** The most targets tried in one call, the first included. */
    attempts: z.number().int().min(1).max(10),
    backoff_ms: z.number().int().min(0).max(60_000).default(0),
    on: z.array(z.enum(RETRY_ON, { error: (i) => `unknown failure "${String(i.input)}"; one of ${RETRY_ON.join(", ")}` })).min(1).default(["429", "5xx", "timeout"]),
  })
  .strict();

const ZCondition = z
  .object({
    /** A CEL expression over the call's facts (route-conditions.ts). */
    when: z.string().trim().min(1).max(2000),
    /** A route or a catalog model. */
    use: z.string().trim().min(1).max(200),
  })
  .strict();

export const ZRouteDefinition = z
  .object({
    name: ZRouteName,
    description: z.string().max(500).optional(),
    strategy: z.enum(STRATEGIES, { error: (i) => `unknown strategy "${String(i.input)}"; one of ${STRATEGIES.join(", ")}` }),
    targets: z.array(ZTarget).min(1).max(20),
    retry: ZRetry.optional(),
    conditions: z.array(ZCondition).max(20).default([]),
    /** The longest a call waits for a rate-limited target's Retry-After before giving up on it (ms). */
    max_wait_ms: z.number().int().min(0).max(60_000).default(2000),
    /** least-latency: the share of calls sent to another target than the fastest, so that a recovered one is noticed. */
    exploration: z.number().min(0).max(0.5).default(0.05),
    /** Prefer targets served in the caller's region (its x-gateway-region header, or its plan's region). */
    prefer_region: z.boolean().default(false),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.strategy === "weighted" && !r.targets.some((t) => t.weight > 0)) ctx.addIssue({ code: "custom", path: ["targets"], message: "a weighted route needs a target with a weight above 0" });
  });

export type RouteDefinition = z.output<typeof ZRouteDefinition>;
export type RouteTarget = RouteDefinition["targets"][number];

/** The scope of the operator's routes, which every workspace sees. */
export const GLOBAL_SCOPE = "*";
