// POST /v1/audio/speech: routed like chat; the node's audio bytes are relayed as they arrive.
// Billed on the input's characters; the event is committed before the last byte is sent, and a
// node that breaks off mid-stream costs nothing (the client's connection is broken off too).
import type { ModelRow } from "../../routing/catalog/model-row";
import { BinaryBody } from "../../kernel/binary-body";
import { characterCost, characterCount, maxSpeechCost } from "../../routing/catalog/media-pricing";
import { recordCall, release, type Metering } from "../../ledger/meter";
import { ModelCall } from "../../admission/admit";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { upstreamError, withFailover } from "../../routing/nodes/router";
import { postJson } from "../../providers/http";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { requireModelType } from "./model-type";
import type { SpeechRequest } from "./schema";

const CONTENT_TYPES: Record<SpeechRequest["response_format"], string> = {
  mp3: "audio/mpeg",
  opus: "audio/ogg",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

export async function createSpeech(req: SpeechRequest, workspaceId: string | null): Promise<ModelCall<BinaryBody>> {
  const { row } = await resolveModel(req.model, workspaceId);
  requireModelType(row, "speech", "/v1/audio/speech");
  return new ModelCall({ endpoint: "/v1/audio/speech", model: row.id, maxCost: maxSpeechCost(row, req.input) }, (metering) => speak(metering, row, req));
}

async function speak(metering: Metering, row: ModelRow, req: SpeechRequest): Promise<BinaryBody> {
  const started = performance.now();
  const { result, routed, release: done } = await withFailover(row.id, (r) =>
    postJson(r.node, "/audio/speech", JSON.stringify({ ...req, model: r.upstreamModel })), undefined, metering.ctx.attempt,
  );
  const characters = characterCount(req.input);
  const bill = () => recordCall(metering, { modelId: row.id, nodeId: routed.node.id, started }, { characters, cost: characterCost(row, characters) });
  async function* relay(): AsyncGenerator<Uint8Array> {
    let held: Uint8Array | undefined;
    try {
      try {
        // One chunk is held back, so the usage event is committed before the last byte leaves.
        for await (const chunk of result.body as AsyncIterable<Buffer>) {
          if (held) yield held;
          held = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        }
      } catch {
        throw upstreamError(new UpstreamFailure("protocol", "the node broke off the audio stream", 502));
      } finally {
        done();
      }
      await bill();
      if (held) yield held;
    } finally {
      release(metering); // a no-op once charged
    }
  }
  // Settled by a payment (x402), not the balance: the audio is read whole and settled before the
  // answer starts, so its receipt goes with the answer's headers (audio has no frame to carry it after).
  if (metering.settle) return new BinaryBody(await readAll(relay()), CONTENT_TYPES[req.response_format]);
  return new BinaryBody(relay(), CONTENT_TYPES[req.response_format]);
}

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
