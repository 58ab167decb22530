// GET /v1/images/files/{name}?expires&signature: a stored image behind a signed, expiring link,
// served without an API key. A bad signature is 403; an expired link or a missing image 404.
import { BinaryBody } from "../../kernel/binary-body";
import { GatewayError } from "../../kernel/errors";
import { blobStore, isValidKey } from "../../infra/storage/blob-store";
import { checkLink } from "../../infra/storage/signed-url";
import type { ImageFile } from "./schema";

export async function readImageFile(req: ImageFile): Promise<BinaryBody> {
  const key = `images/${req.name}`;
  const check = isValidKey(key) ? checkLink(key, req.expires, req.signature) : "tampered";
  if (check === "tampered") {
    throw new GatewayError({ status: 403, code: "invalid_signature", param: "signature", message: "The image link's signature is not valid." });
  }
  if (check === "expired") {
    throw new GatewayError({ status: 404, code: "image_expired", message: "The image link has expired. Image URLs are valid for a limited time; request the image again." });
  }
  const blob = await blobStore().get(key);
  if (!blob) throw new GatewayError({ status: 404, code: "image_not_found", message: "The image no longer exists." });
  const maxAge = Math.max(0, req.expires - Math.floor(Date.now() / 1000));
  return new BinaryBody(blob.data, blob.contentType, { length: blob.data.byteLength, maxAgeSeconds: maxAge });
}
