// A call's tags: `key=value` pairs from its `x-gateway-tags` header (comma separated, any route)
// and from the string values of its request's `metadata` (chat completions, responses, messages),
// the header winning. Usage, the request log and the CSV export filter and group by them (cost
// per team, per feature, per customer). Bounded, so a client cannot grow a row without limit.
import { errors } from "../kernel/errors";

export type Tags = Record<string, string>;

export const MAX_TAGS = 16;
const KEY = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_VALUE = 128;

function invalid(message: string) {
  return errors.invalidRequest(`x-gateway-tags: ${message} (key=value pairs, comma separated).`, "x-gateway-tags", "invalid_tags");
}

/** The header's tags; a malformed header is a 400 naming it. */
export function headerTags(header: string | undefined): Tags {
  const tags: Tags = {};
  if (!header?.trim()) return tags;
  for (const pair of header.split(",")) {
    if (!pair.trim()) continue;
    const at = pair.indexOf("=");
    const key = (at < 0 ? pair : pair.slice(0, at)).trim();
    const value = at < 0 ? "" : pair.slice(at + 1).trim();
    if (!KEY.test(key)) throw invalid(`\`${key.slice(0, 64)}\` is not a tag key (letters, digits, _ . : - up to 64)`);
    if (!value || value.length > MAX_VALUE) throw invalid(`the value of \`${key}\` must have 1 to ${MAX_VALUE} characters`);
    tags[key] = value;
  }
  if (Object.keys(tags).length > MAX_TAGS) throw invalid(`at most ${MAX_TAGS} tags`);
  return tags;
}

/** A request's `metadata` as tags: its string values under valid keys (others are the provider's business). */
export function metadataTags(metadata: unknown): Tags {
  const tags: Tags = {};
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return tags;
  for (const [key, value] of Object.entries(metadata)) {
    if (Object.keys(tags).length >= MAX_TAGS) break;
    if (typeof value === "string" && value && value.length <= MAX_VALUE && KEY.test(key)) tags[key] = value;
  }
  return tags;
}

/** Both, the header's winning; undefined when there are none. */
export function callTags(header: Tags, metadata: unknown): Tags | undefined {
  const merged = { ...metadataTags(metadata), ...header };
  const keys = Object.keys(merged);
  if (!keys.length) return undefined;
  return keys.length > MAX_TAGS ? Object.fromEntries(Object.entries(merged).slice(-MAX_TAGS)) : merged;
}

/** A `key=value` filter (CLI, dashboard): its key and value. */
export function parseTagFilter(filter: string): { key: string; value: string } {
  const at = filter.indexOf("=");
  const key = at < 0 ? filter : filter.slice(0, at);
  if (!KEY.test(key)) throw errors.invalidRequest(`\`${filter}\` is not a tag filter (key=value).`, "tag");
  return { key, value: at < 0 ? "" : filter.slice(at + 1) };
}
