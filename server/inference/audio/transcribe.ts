// POST /v1/audio/transcriptions and /translations: the gateway decodes the uploaded audio's real
// duration (and refuses what it cannot decode), re-sends the file to a node as multipart, and
// passes the node's transcript on. Billed `per_audio_second` × the decoded duration.
import { BinaryBody } from "../../kernel/binary-body";
import { audioSecondsCost } from "../../routing/catalog/media-pricing";
import { recordCall, type Metering } from "../../ledger/meter";
import { ModelCall } from "../../admission/admit";
import type { ModelRow } from "../../routing/catalog/model-row";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { errors } from "../../kernel/errors";
import { withFailover } from "../../routing/nodes/router";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { FormData, postMultipart } from "../../providers/openai-compatible/multipart";
import { decodedDuration } from "./audio-file";
import { requireModelType } from "./model-type";
import type { TranscriptionRequest, TranslationRequest } from "./schema";
import { shapeTranscript } from "./transcript-shape";

type Task = "transcribe" | "translate";

type Format = NonNullable<TranscriptionRequest["response_format"]>;

/** What the node is asked for and the client gets: the full result unless a format was named. */
const formatOf = (req: TranscriptionRequest): Format => req.response_format ?? "verbose_json";

function formFor(req: TranscriptionRequest, upstreamModel: string): FormData {
  const form = new FormData();
  form.append("file", new Blob([req.file.data as Uint8Array<ArrayBuffer>], { type: req.file.contentType }), req.file.filename || "audio");
  form.append("model", upstreamModel);
  form.append("response_format", formatOf(req));
  if (req.language) form.append("language", req.language);
  if (req.prompt) form.append("prompt", req.prompt);
  if (req.temperature !== undefined) form.append("temperature", String(req.temperature));
  for (const g of req.timestamp_granularities ?? []) form.append("timestamp_granularities[]", g);
  return form;
}

type Transcript = Record<string, unknown> | BinaryBody;

async function plan(req: TranscriptionRequest, task: Task, workspaceId: string | null): Promise<ModelCall<Transcript>> {
  const endpoint = task === "transcribe" ? "/v1/audio/transcriptions" : "/v1/audio/translations";
  const { row } = await resolveModel(req.model, workspaceId);
  requireModelType(row, "transcription", endpoint);
  if (req.timestamp_granularities && formatOf(req) !== "verbose_json") {
    throw errors.invalidRequest("timestamp_granularities requires response_format `verbose_json`.", "timestamp_granularities");
  }
  // The decoded duration is what is billed, so the reservation is exactly the cost.
  const seconds = await decodedDuration(req.file);
  return new ModelCall({ endpoint, model: row.id, maxCost: audioSecondsCost(row, seconds) }, (metering) => callNode(metering, row, req, task, seconds));
}

async function callNode(metering: Metering, row: ModelRow, req: TranscriptionRequest, task: Task, seconds: string): Promise<Transcript> {
  const started = performance.now();
  const path = task === "transcribe" ? "/audio/transcriptions" : "/audio/translations";
  const { result, routed, release } = await withFailover(row.id, async (r) => {
    const res = await postMultipart(r.node, path, formFor(req, r.upstreamModel));
    try {
      return { text: await res.body.text(), contentType: String(res.headers["content-type"] ?? "") };
    } catch {
      throw new UpstreamFailure("protocol", "the node's transcript could not be read", 502);
    }
  }, undefined, metering.ctx.attempt);
  release();
  const answer = shapeTranscript(result.text, formatOf(req), task, seconds);
  await recordCall(metering, { modelId: row.id, nodeId: routed.node.id, started }, { audioSeconds: seconds, cost: audioSecondsCost(row, seconds) });
  return typeof answer === "string" ? new BinaryBody(answer, "text/plain; charset=utf-8") : answer;
}

export function transcribe(req: TranscriptionRequest, workspaceId: string | null): Promise<ModelCall<Transcript>> {
  return plan(req, "transcribe", workspaceId);
}

export function translate(req: TranslationRequest, workspaceId: string | null): Promise<ModelCall<Transcript>> {
  return plan(req, "translate", workspaceId);
}
