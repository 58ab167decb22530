// Which MCP tools a key or a plan may use: patterns over the names /mcp offers, `<server>__<tool>`
// (server/mcp/server-def.ts), where `*` stands for any run of characters (`github__*`,
// `*__read_file`, `search__web`). Stored as given; an empty list means every tool.
import { z } from "zod";

/**
 * One pattern. The server part (before the first `__`) is a server name's characters; the tool
 * part allows what the MCP specification allows in a tool's name (case-sensitive letters, digits,
 * `_`, `-`, `.`, `/`), so that a camelCase tool can be named exactly. `*` alone is every tool.
 */
const ZToolPattern = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((p) => /^[A-Za-z0-9_.\/*-]+$/.test(p), { error: (i) => `tool pattern "${String(i.input)}" may hold only letters, digits, _ - . / and *` })
  .refine((p) => p === "*" || p.includes("__"), { error: (i) => `tool pattern "${String(i.input)}" names no server: write <server>__<tool>, e.g. github__* or *__read_file` })
  .refine((p) => p === "*" || /^[a-z0-9_*-]+$/.test(p.slice(0, p.indexOf("__"))), {
    error: (i) => `tool pattern "${String(i.input)}": the server part (before __) is lower-case letters, digits, - and _`,
  });

const unique = (list: string[]) => [...new Set(list)];

/** A key's tools: at least one pattern (leave the list out for every tool), deduplicated. */
export const ZToolPatterns = z
  .array(ZToolPattern)
  .min(1, "name at least one tool pattern, or leave it out for every tool")
  .max(500)
  .transform(unique);

/** A plan's tools: patterns, or an empty list for every tool (plans store models the same way). */
export const ZPlanToolPatterns = z.array(ZToolPattern).max(500).transform(unique);

/** A pattern split at its stars: a name matches when the parts occur in it in order, the first at its start and the last at its end. */
type Compiled = { every: boolean; exact: ReadonlySet<string>; globs: readonly (readonly string[])[] };

/**
 * Matching walks the parts left to right with indexOf, so its cost is linear in the name for each
 * pattern: a regular expression of many stars could backtrack for a long time on a name that a
 * caller chooses, and the patterns are written by any member who may create a key.
 */
function globMatches(parts: readonly string[], name: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const found = name.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** Compiled once per stored array (the key's and the plan's lists live as long as their cached records). */
const compiledLists = new WeakMap<readonly string[], Compiled>();

function compile(patterns: readonly string[]): Compiled {
  let compiled = compiledLists.get(patterns);
  if (compiled) return compiled;
  const exact = new Set<string>();
  const globs: string[][] = [];
  for (const p of patterns) {
    if (p.includes("*")) globs.push(p.split("*"));
    else exact.add(p);
  }
  compiled = { every: patterns.includes("*"), exact, globs };
  compiledLists.set(patterns, compiled);
  return compiled;
}

/** Whether a tool (`<server>__<tool>`) is among the patterns; null, undefined or empty: every tool is. */
export function toolAllowed(patterns: readonly string[] | null | undefined, name: string): boolean {
  if (!patterns?.length) return true;
  const c = compile(patterns);
  return c.every || c.exact.has(name) || c.globs.some((parts) => globMatches(parts, name));
}

/** Whether a caller may use a tool: both its key's patterns and its plan's must allow it (each null/empty: no restriction). */
export function mayUseTool(grantTools: readonly string[] | null | undefined, planTools: readonly string[] | null | undefined, name: string): boolean {
  return toolAllowed(grantTools, name) && toolAllowed(planTools, name);
}

/**
 * Whether every name a pattern matches is matched by one of `patterns` (used to keep a session
 * token's plan within the tools of the key that mints it). Sound but not complete: it holds when a
 * pattern of the list matches the other pattern's text with its stars read as characters, since
 * those stars then fall inside the list pattern's own stars.
 */
export function patternWithin(patterns: readonly string[] | null | undefined, pattern: string): boolean {
  return toolAllowed(patterns, pattern);
}
