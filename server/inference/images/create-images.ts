// POST /v1/images/generations, /edits and /variations: routed like chat, the node always asked
// for b64_json; billed `per_image` × the images returned.
import { requireModelType } from "../audio/model-type";
import { imageCost, maxImageCost } from "../../routing/catalog/media-pricing";
import { recordCall, type Metering } from "../../ledger/meter";
import { ModelCall } from "../../admission/admit";
import type { ModelRow } from "../../routing/catalog/model-row";
import { entriesFor, getCatalog, resolveModel } from "../../routing/catalog/catalog-cache";
import { errors } from "../../kernel/errors";
import { withFailover } from "../../routing/nodes/router";
import { postJson, type UpstreamResponse } from "../../providers/http";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { FormData, postMultipart } from "../../providers/openai-compatible/multipart";
import type { Routed } from "../../routing/nodes/router";
import type { Upload } from "../../infra/storage/upload";
import { deliverImages, nodeImages, type ImageDatum } from "./deliver";
import type { ImageEdit, ImageGeneration, ImageVariation } from "./schema";
import { checkImage, checkMask } from "./uploaded-image";

export type ImagesResult = { created: number; data: ImageDatum[] };

/** Without `model`, the first image model (by id) that a node serves right now. */
async function imageModel(id: string | undefined, endpoint: string, workspaceId: string | null): Promise<ModelRow> {
  if (id) {
    const { row } = await resolveModel(id, workspaceId);
    requireModelType(row, "image", endpoint);
    return row;
  }
  for (const entry of entriesFor(await getCatalog(), workspaceId)) {
    if (entry.row.type === "image" && entry.readyNow && !entry.row.deprecated) return entry.row;
  }
  throw errors.invalidRequest("No image model is available; pass `model`.", "model");
}

type Shape = { response_format: "b64_json" | "url"; origin: string; n?: number | null };

/** Admitted for `n` images' price: calls the node, charges the images returned (at most `n`). */
function plan(endpoint: string, row: ModelRow, req: Shape, call: (r: Routed) => Promise<UpstreamResponse>): ModelCall<ImagesResult> {
  return new ModelCall({ endpoint, model: row.id, maxCost: maxImageCost(row, req.n) }, (metering) => generate(metering, row, req, call));
}

async function generate(metering: Metering, row: ModelRow, req: Shape, call: (r: Routed) => Promise<UpstreamResponse>): Promise<ImagesResult> {
  const started = performance.now();
  const { result, routed, release } = await withFailover(row.id, async (r) => {
    const res = await call(r);
    try {
      return JSON.parse(await res.body.text()) as unknown;
    } catch {
      throw new UpstreamFailure("protocol", "the node sent unreadable images", 502);
    }
  }, undefined, metering.ctx.attempt);
  release();
  const images = nodeImages(result);
  const data = await deliverImages(images, req.response_format, req.origin);
  await recordCall(metering, { modelId: row.id, nodeId: routed.node.id, started }, { images: data.length, cost: imageCost(row, data.length) });
  const created = (result as { created?: unknown }).created;
  return { created: typeof created === "number" ? created : Math.floor(Date.now() / 1000), data };
}

export async function generateImages(req: ImageGeneration, workspaceId: string | null): Promise<ModelCall<ImagesResult>> {
  const endpoint = "/v1/images/generations";
  const row = await imageModel(req.model, endpoint, workspaceId);
  const { origin: _origin, response_format: _format, ...fields } = req;
  return plan(endpoint, row, req, (r) =>
    postJson(r.node, "/images/generations", JSON.stringify({ ...fields, model: r.upstreamModel, response_format: "b64_json" })),
  );
}

function appendFile(form: FormData, name: string, file: Upload): void {
  form.append(name, new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.contentType }), file.filename || `${name}.png`);
}

function formOf(fields: Record<string, unknown>, files: Record<string, Upload | undefined>, upstreamModel: string): FormData {
  const form = new FormData();
  for (const [name, file] of Object.entries(files)) if (file) appendFile(form, name, file);
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, String(value));
  form.append("model", upstreamModel);
  form.append("response_format", "b64_json");
  return form;
}

export async function editImages(req: ImageEdit, workspaceId: string | null): Promise<ModelCall<ImagesResult>> {
  const endpoint = "/v1/images/edits";
  const row = await imageModel(req.model, endpoint, workspaceId);
  const image = await checkImage(req.image, "image");
  if (req.mask) checkMask(image, await checkImage(req.mask, "mask"));
  const { origin: _o, response_format: _f, model: _m, image: img, mask, ...fields } = req;
  return plan(endpoint, row, req, (r) => postMultipart(r.node, "/images/edits", formOf(fields, { image: img, mask }, r.upstreamModel)));
}

export async function varyImages(req: ImageVariation, workspaceId: string | null): Promise<ModelCall<ImagesResult>> {
  const endpoint = "/v1/images/variations";
  const row = await imageModel(req.model, endpoint, workspaceId);
  await checkImage(req.image, "image");
  const { origin: _o, response_format: _f, model: _m, image, ...fields } = req;
  return plan(endpoint, row, req, (r) => postMultipart(r.node, "/images/variations", formOf(fields, { image }, r.upstreamModel)));
}
