// A route's conditions: CEL expressions (the Common Expression Language, evaluated with
// @marcbachmann/cel-js) over what is known of a call before it is sent. Compiled and type-checked
// when the route is saved (an unknown variable, a syntax error or a result that is not a bool is
// refused there, with its position), compiled once per process when the route is loaded, and
// evaluated per call only for a route that has conditions. A condition whose evaluation fails (a
// metadata key the call does not have) does not hold.
import { Environment } from "@marcbachmann/cel-js";

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

let environment: Environment | undefined;
function celEnvironment(): Environment {
  if (!environment) {
    let env = new Environment({ limits: { maxAstNodes: 500, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 } });
    for (const [name, type] of Object.entries(CONDITION_VARIABLES)) env = env.registerVariable(name, type);
    environment = env;
  }
  return environment;
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
