// A route's conditions: CEL expressions (the Common Expression Language, evaluated with
// @marcbachmann/cel-js) over what is known of a call before it is sent. Compiled and type-checked
// when the route is saved (an unknown variable, a syntax error or a result that is not a bool is
// refused there, with its position), compiled once per process when the route is loaded, and
// evaluated per call only for a route that has conditions. A condition whose evaluation fails (a
// metadata key the call does not have) does not hold.
//
// CEL's `matches` is refused: the library runs it with JavaScript's backtracking RegExp, and a
// pattern such as `^(a+)+$` over a caller's metadata would hold a process for seconds (measured:
// 13.8 s for 29 characters). `re_match(text, pattern)` does the same with RE2 (re2js), in linear time.
import { Environment } from "@marcbachmann/cel-js";
import { RE2JS } from "re2js";
import { boundedLru } from "../../infra/cache/bounded-lru";

/** The facts a condition may name, and their CEL types. */
export const CONDITION_VARIABLES = {
  metadata: "map<string, string>",
  tags: "map<string, string>",
  key: "map<string, string>",
  plan: "map<string, string>",
  subject: "string",
  model: "string",
  params: "map<string, dyn>",
  has_images: "bool",
  has_tools: "bool",
  prompt_tokens: "int",
} as const;

export type ConditionFacts = {
  metadata: Record<string, string>;
  tags: Record<string, string>;
  key: { id: string; name: string };
  plan: { id: string; name: string };
  subject: string;
  model: string;
  params: Record<string, unknown>;
  has_images: boolean;
  has_tools: boolean;
  prompt_tokens: bigint;
};

const patterns = boundedLru<string, RE2JS>(1000);

/** RE2's answer: whether `pattern` matches anywhere in `text` (linear time, whatever the pattern). */
function re2Match(text: string, pattern: string): boolean {
  let re = patterns.get(pattern);
  if (!re) patterns.set(pattern, (re = RE2JS.compile(pattern)));
  return re.matcher(text).find();
}

let environment: Environment | undefined;
function celEnvironment(): Environment {
  if (!environment) {
    let env = new Environment({ limits: { maxAstNodes: 500, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 } });
    for (const [name, type] of Object.entries(CONDITION_VARIABLES)) env = env.registerVariable(name, type);
    environment = env.registerFunction("re_match(string, string): bool", re2Match);
  }
  return environment;
}

/** Whether the parsed expression calls `matches` anywhere (as a method or a function). */
function callsMatches(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(callsMatches);
  if (!node || typeof node !== "object") return false;
  const n = node as { op?: string; args?: unknown };
  if ((n.op === "call" || n.op === "rcall") && Array.isArray(n.args) && n.args[0] === "matches") return true;
  return callsMatches(n.args);
}

/** A pattern given to re_match as a literal must compile as RE2 (a pattern from the call's data is checked when it runs: an invalid one does not hold). */
function badLiteralPattern(node: unknown): string | null {
  if (Array.isArray(node)) {
    for (const x of node) {
      const bad = badLiteralPattern(x);
      if (bad) return bad;
    }
    return null;
  }
  if (!node || typeof node !== "object") return null;
  const n = node as { op?: string; args?: unknown };
  if (n.op === "call" && Array.isArray(n.args) && n.args[0] === "re_match") {
    const pattern = (n.args[1] as { op?: string; args?: unknown }[] | undefined)?.[1];
    if (pattern?.op === "value" && typeof pattern.args === "string") {
      try {
        RE2JS.compile(pattern.args);
      } catch (err) {
        return `re_match's pattern ${JSON.stringify(pattern.args)} is not valid RE2: ${(err as Error).message}`;
      }
    }
  }
  return badLiteralPattern(n.args);
}

export type CompiledCondition = (facts: ConditionFacts) => boolean;

/** Why an expression is refused: its message, with the line and the caret that point at the position. */
function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\n\s*\n/g, "\n").trim();
}

/** Compiles an expression; a string saying why (with its position) when it does not compile, names an unknown variable or is not a bool. */
export function compileCondition(source: string): CompiledCondition | string {
  let program: ReturnType<Environment["parse"]>;
  try {
    program = celEnvironment().parse(source);
  } catch (err) {
    return reason(err);
  }
  if (callsMatches((program as unknown as { ast: unknown }).ast)) return "matches() is not available (it would run a backtracking regular expression); use re_match(text, pattern), which runs RE2";
  const badPattern = badLiteralPattern((program as unknown as { ast: unknown }).ast);
  if (badPattern) return badPattern;
  const checked = program.check() as { valid: boolean; type?: string; error?: unknown };
  if (!checked.valid) return reason(checked.error);
  if (checked.type !== "bool" && checked.type !== "dyn") return `the expression is a ${checked.type}; a condition must be a bool`;
  return (facts) => {
    try {
      return program(facts) === true;
    } catch {
      return false;
    }
  };
}
