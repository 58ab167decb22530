// An OpenAI message's content (a string or parts) -> Gemini parts: text as text, images as
// inline data (a `data:` URL) or a file reference (an http(s) URL: Gemini fetches it itself and
// must be able to; its type is guessed from the file name, image/jpeg when it has none), audio
// and files given inline as inline data. Other part types are dropped.
import type { Part } from "./types";

type ContentPart = {
  type?: string;
  text?: string;
  refusal?: string;
  image_url?: { url?: string } | string;
  input_audio?: { data?: string; format?: string };
  file?: { file_data?: string; filename?: string };
};

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", webp: "image/webp", gif: "image/gif", heic: "image/heic", heif: "image/heif" };

export function contentParts(content: unknown): Part[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as ContentPart[]).flatMap((part): Part[] => {
    switch (part.type) {
      case "text":
        return part.text ? [{ text: part.text }] : [];
      case "refusal":
        return part.refusal ? [{ text: part.refusal }] : [];
      case "image_url":
        return imagePart(typeof part.image_url === "string" ? part.image_url : part.image_url?.url);
      case "input_audio":
        return part.input_audio?.data ? [{ inlineData: { mimeType: `audio/${part.input_audio.format ?? "wav"}`, data: part.input_audio.data } }] : [];
      case "file":
        return inlinePart(part.file?.file_data);
      default:
        return [];
    }
  });
}

function inlinePart(url: string | undefined): Part[] {
  const match = url ? DATA_URL.exec(url) : null;
  return match ? [{ inlineData: { mimeType: match[1]!, data: match[2]! } }] : [];
}

function imagePart(url: string | undefined): Part[] {
  if (!url) return [];
  if (url.startsWith("data:")) return inlinePart(url);
  if (!/^https?:\/\//i.test(url)) return [];
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? "";
  return [{ fileData: { fileUri: url, mimeType: IMAGE_TYPES[extension] ?? "image/jpeg" } }];
}

/** The text of a content (a string, or its text parts joined by newlines). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as ContentPart[])
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}
