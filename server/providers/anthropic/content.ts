// OpenAI message content (a string, or text and image parts) as Anthropic content blocks. A
// part's `cache_control` is kept as it is; a message's own `cache_control` goes on its last
// block, where Anthropic sets a cache breakpoint.
import type { Base64ImageSource, CacheControlEphemeral, ImageBlockParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { errors } from "../../kernel/errors";
import type { Json } from "../adapter";

export type Part = Json & { type?: unknown; cache_control?: CacheControlEphemeral | null };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An image part as an image block: a data: URL as base64 data, an http(s) URL as a URL source. */
export function imageBlock(part: Part): ImageBlockParam {
  const image = part.image_url as { url?: unknown } | string | undefined;
  const url = typeof image === "string" ? image : image?.url;
  if (typeof url !== "string") throw errors.invalidRequest("An `image_url` part needs a `url`.", "messages");
  const data = DATA_URL.exec(url);
  const block: ImageBlockParam = data
    ? { type: "image", source: { type: "base64", media_type: data[1] as Base64ImageSource["media_type"], data: data[2]! } }
    : /^https?:\/\//i.test(url)
      ? { type: "image", source: { type: "url", url } }
      : unsupported("an image URL that is neither a base64 data: URL nor http(s)");
  return withCache(block, part.cache_control);
}

function unsupported(what: string): never {
  throw errors.invalidRequest(`This model's node speaks Anthropic's Messages API, which cannot take ${what}.`, "messages", "unsupported_parameter");
}

export function withCache<T extends object>(block: T, cache: CacheControlEphemeral | null | undefined): T {
  return cache ? { ...block, cache_control: cache } : block;
}

/** Text parts only (system prompts, assistant text): empty text is left out, as Anthropic refuses empty text blocks. */
export function textBlocks(content: unknown): TextBlockParam[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as Part[]).flatMap((part) => {
    if (part.type === "refusal") return [];
    if (part.type !== "text") return unsupported(`a \`${String(part.type)}\` part in this message`);
    return typeof part.text === "string" && part.text ? [withCache({ type: "text" as const, text: part.text }, part.cache_control)] : [];
  });
}

/** User (and tool result) content: text and images. */
export function userBlocks(content: unknown): (TextBlockParam | ImageBlockParam)[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as Part[]).flatMap((part): (TextBlockParam | ImageBlockParam)[] => {
    if (part.type === "image_url") return [imageBlock(part)];
    if (part.type === "text") return textBlocks([part]);
    return unsupported(`a \`${String(part.type)}\` content part`);
  });
}

/** The message's own cache_control on its last block. */
export function cacheLast<T extends object>(blocks: T[], cache: unknown): T[] {
  if (!cache || !blocks.length) return blocks;
  return [...blocks.slice(0, -1), withCache(blocks.at(-1)!, cache as CacheControlEphemeral)];
}
