// Turns the node's images (always asked for as b64_json) into the client's answer: b64_json as
// is, or `url`: each image stored in blob storage and linked by a signed, expiring gateway URL.
import { env } from "../../infra/env";
import { randomBase62 } from "../../kernel/ids";
import { upstreamError } from "../../routing/nodes/router";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { blobStore } from "../../infra/storage/blob-store";
import { signQuery } from "../../infra/storage/signed-url";

export type NodeImage = { b64_json?: unknown; revised_prompt?: unknown };
export type ImageDatum = { b64_json?: string; url?: string; revised_prompt?: string };

const unreadable = () => upstreamError(new UpstreamFailure("protocol", "the node sent unreadable images", 502));

export function imageExtension(bytes: Buffer): "png" | "jpeg" | "webp" | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP") return "webp";
  return null;
}

/** The node's data[], checked: each entry must carry a base64 image. */
export function nodeImages(body: unknown): NodeImage[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length === 0) throw unreadable();
  for (const d of data) if (typeof (d as NodeImage)?.b64_json !== "string") throw unreadable();
  return data as NodeImage[];
}

export const IMAGE_PATH = "/v1/images/files";

export async function deliverImages(images: NodeImage[], format: "b64_json" | "url", origin: string): Promise<ImageDatum[]> {
  return Promise.all(
    images.map(async (img) => {
      const revised = typeof img.revised_prompt === "string" ? { revised_prompt: img.revised_prompt } : {};
      if (format === "b64_json") return { b64_json: img.b64_json as string, ...revised };
      const bytes = Buffer.from(img.b64_json as string, "base64");
      const ext = imageExtension(bytes);
      if (!ext) throw unreadable();
      const name = `img_${randomBase62(24)}.${ext}`;
      await blobStore().put(`images/${name}`, bytes, `image/${ext}`);
      const { expires, signature } = signQuery(`images/${name}`, env.IMAGE_URL_TTL_SECONDS);
      return { url: `${origin}${IMAGE_PATH}/${name}?expires=${expires}&signature=${signature}`, ...revised };
    }),
  );
}
