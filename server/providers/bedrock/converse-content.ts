// OpenAI message content as Converse content blocks: text, images (a base64 data: URL as bytes,
// an s3:// URL as an S3 location; Bedrock fetches no http URL), files as documents, and a
// part's `cache_control` as a cache point right after it (where Bedrock sets a breakpoint).
import { errors } from "../../kernel/errors";
import type { Json } from "../adapter";
import type { ConverseContentBlock } from "./types";

type Part = Json & { type?: unknown; cache_control?: unknown };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;
const IMAGE_FORMATS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp" };
const DOCUMENT_FORMATS = new Set(["pdf", "csv", "doc", "docx", "xls", "xlsx", "html", "txt", "md"]);
const DOCUMENT_MIME: Record<string, string> = { "application/pdf": "pdf", "text/csv": "csv", "text/html": "html", "text/plain": "txt", "text/markdown": "md" };

export const CACHE_POINT: ConverseContentBlock = { cachePoint: { type: "default" } };

function unsupported(what: string): never {
  throw errors.invalidRequest(`This model's node speaks Bedrock's Converse API, which cannot take ${what}.`, "messages", "unsupported_parameter");
}

function imageBlock(part: Part): ConverseContentBlock {
  const image = part.image_url as { url?: unknown } | string | undefined;
  const url = String(typeof image === "string" ? image : (image?.url ?? ""));
  const data = DATA_URL.exec(url);
  if (data) {
    const format = IMAGE_FORMATS[data[1]!.toLowerCase()] ?? unsupported(`an image of type ${data[1]}`);
    return { image: { format, source: { bytes: data[2]! } } };
  }
  if (url.startsWith("s3://")) {
    const format = IMAGE_FORMATS[`image/${url.split(".").pop()?.toLowerCase()}`] ?? unsupported("an S3 image that is not png, jpeg, gif or webp");
    return { image: { format, source: { s3Location: { uri: url } } } };
  }
  return unsupported("an image URL (send it as a base64 data: URL)");
}

/** Bedrock's document names: letters, digits, single spaces, hyphens, parentheses and brackets. */
const documentName = (name: string) => name.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9\s\-()[\]]/g, " ").replace(/\s+/g, " ").trim() || "document";

function documentBlock(part: Part): ConverseContentBlock {
  const file = (part.file ?? {}) as { file_data?: unknown; filename?: unknown };
  const data = DATA_URL.exec(String(file.file_data ?? ""));
  if (!data) return unsupported("a file that is not given inline as a base64 data: URL");
  const filename = typeof file.filename === "string" ? file.filename : "document";
  const extension = filename.includes(".") ? filename.split(".").pop()!.toLowerCase() : "";
  const format = DOCUMENT_MIME[data[1]!.toLowerCase()] ?? (DOCUMENT_FORMATS.has(extension) ? extension : unsupported(`a file of type ${data[1]}`));
  return { document: { format, name: documentName(filename), source: { bytes: data[2]! } } };
}

function blockOf(part: Part): ConverseContentBlock[] {
  switch (part.type) {
    case "text":
      return typeof part.text === "string" && part.text ? [{ text: part.text }] : [];
    case "image_url":
      return [imageBlock(part)];
    case "file":
      return [documentBlock(part)];
    case "refusal":
      return [];
    default:
      return unsupported(`a \`${String(part.type)}\` content part`);
  }
}

/** A message's content as blocks, a cache point after each part that asks for one. */
export function contentBlocks(content: unknown): ConverseContentBlock[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as Part[]).flatMap((part) => {
    const blocks = blockOf(part);
    return part.cache_control && blocks.length ? [...blocks, CACHE_POINT] : blocks;
  });
}

/** The message's own cache_control as a cache point at its end. */
export const withCachePoint = (blocks: ConverseContentBlock[], cache: unknown) => (cache && blocks.length && !("cachePoint" in blocks.at(-1)!) ? [...blocks, CACHE_POINT] : blocks);
