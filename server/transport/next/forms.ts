// The multipart forms of the audio, image and video endpoints, read with their limits, and the origin
// that image links point at.
import { env } from "../../infra/env";
import { readMultipart } from "../multipart";

/** Fields and files of a multipart form as one object, the input of a procedure. */
async function formInput(req: Request, files: string[], maxFileBytes: number): Promise<Record<string, unknown>> {
  const form = await readMultipart(req, { files, maxFileBytes });
  return { ...form.fields, ...form.files };
}

/** /v1/audio/transcriptions and /translations: `file`, at most MAX_AUDIO_UPLOAD_BYTES. */
export const audioForm = (req: Request) => formInput(req, ["file"], env.MAX_AUDIO_UPLOAD_BYTES);

/** /v1/images/edits and /variations: `image` and `mask`, each at most MAX_IMAGE_UPLOAD_BYTES. */
export const imageForm = (req: Request) => formInput(req, ["image", "mask"], env.MAX_IMAGE_UPLOAD_BYTES);

/** /v1/videos (the OpenAI SDK sends a form): an `input_reference` image, at most MAX_IMAGE_UPLOAD_BYTES. */
export const videoForm = (req: Request) => formInput(req, ["input_reference"], env.MAX_IMAGE_UPLOAD_BYTES);

/** Whether the request carries a multipart form (else it is read as JSON). */
export const isMultipart = (req: Request) => /^multipart\/form-data/i.test(req.headers.get("content-type") ?? "");

/** The public origin of this gateway: PUBLIC_BASE_URL, else the one the request was sent to. */
export function publicOrigin(req: Request): string {
  if (env.PUBLIC_BASE_URL) return env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  const url = new URL(req.url);
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? url.host;
  const proto = req.headers.get("x-forwarded-proto") ?? url.protocol.replace(":", "");
  return `${proto}://${host}`;
}

/** A request body with `origin` set by the gateway (whatever the client sent under that name). */
export function withOrigin(body: unknown, req: Request): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  return { ...body, origin: publicOrigin(req) };
}
