// OpenAI's cursor paging over a newest-first list: `after` (an id: return what comes after it)
// and `limit`.
import { ApiError } from "../http";

export type Page<T> = { object: "list"; data: T[]; has_more: boolean; first_id?: string | null; last_id?: string | null };

export function limitParam(query: URLSearchParams, fallback: number, max = 100): number {
  const raw = query.get("limit");
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ApiError(400, "invalid_value", `Invalid value for 'limit': expected an integer between 1 and ${max}.`, "limit");
  return n;
}

/** The page after `after` (from the start when absent or unknown). */
export function page<T extends { id: string }>(newestFirst: T[], query: URLSearchParams, fallback: number): Page<T> {
  const after = query.get("after");
  const from = after ? newestFirst.findIndex((x) => x.id === after) + 1 : 0;
  const rest = newestFirst.slice(from);
  const limit = limitParam(query, fallback);
  const data = rest.slice(0, limit);
  return { object: "list", data, has_more: rest.length > limit, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
