// Mapping between catalog rows and the public model shape.
import type { Prisma } from "../../generated/prisma/client";
import { formatMoney } from "../../kernel/money";
import type { ModelCard, ModelDetail, ModelObject } from "./model-card";

export const modelInclude = { videoSizes: { orderBy: { priceMultiplier: "asc" } } } satisfies Prisma.ModelInclude;
export type ModelRow = Prisma.ModelGetPayload<{ include: typeof modelInclude }>;

export function toModelObject(row: ModelRow, readyNow: boolean): ModelObject {
  return {
    id: row.id,
    object: "model",
    created: Math.floor(row.createdAt.getTime() / 1000),
    display_name: row.displayName,
    owned_by: row.ownerWorkspaceId ?? row.ownedBy,
    provider: row.provider,
    type: row.type,
    context_length: row.contextLength,
    max_output_tokens: row.maxOutputTokens,
    knowledge_cutoff: row.knowledgeCutoff,
    deprecated: row.deprecated,
    ready_now: readyNow,
    capabilities: {
      input_modalities: row.inputModalities,
      output_modalities: row.outputModalities,
      json_mode: row.capJsonMode,
      reasoning: row.capReasoning,
      streaming: row.capStreaming,
      structured_output: row.capStructuredOutput,
      tools: row.capTools,
    },
    fine_tunable: row.fineTunable,
    fine_tuned_from: row.baseModelId,
  };
}

export function toModelDetail(row: ModelRow, readyNow: boolean): ModelDetail {
  const detail: ModelDetail = {
    ...toModelObject(row, readyNow),
    pricing: {
      cache_read_per_1m: formatMoney(row.priceCacheReadPer1m),
      cache_write_per_1m: formatMoney(row.priceCacheWritePer1m),
      input_per_1m: formatMoney(row.priceInputPer1m),
      output_per_1m: formatMoney(row.priceOutputPer1m),
      per_1m_chars: formatMoney(row.pricePer1mChars),
      per_audio_second: formatMoney(row.pricePerAudioSecond),
      per_image: formatMoney(row.pricePerImage),
      per_video_second: formatMoney(row.pricePerVideoSecond),
      pricing_status: row.pricingStatus,
      reasoning_per_1m: formatMoney(row.priceReasoningPer1m),
      batch_discount: formatMoney(row.batchDiscount),
      training_per_1m: formatMoney(row.priceTrainingPer1m),
      fine_tuned_input_per_1m: formatMoney(row.priceFtInputPer1m),
      fine_tuned_output_per_1m: formatMoney(row.priceFtOutputPer1m),
    },
  };
  if (row.type === "video" && row.videoDefaultSize) {
    detail.video = {
      default_size: row.videoDefaultSize,
      default_fps: row.videoFpsDefault ?? row.videoFpsMin ?? 24,
      fps: { min: row.videoFpsMin ?? 1, max: row.videoFpsMax ?? 1 },
      seconds: { min: row.videoSecondsMin ?? 1, max: row.videoSecondsMax ?? 1 },
      supported_sizes: row.videoSizes.map((s) => ({ size: s.size, price_multiplier: formatMoney(s.priceMultiplier) })),
    };
  }
  return detail;
}

/** The catalog columns of a card's capabilities (what the model can be asked for). */
export function capabilityColumns(card: Pick<ModelCard, "capabilities">) {
  const c = card.capabilities;
  return {
    inputModalities: c.input_modalities,
    outputModalities: c.output_modalities,
    capJsonMode: c.json_mode,
    capReasoning: c.reasoning,
    capStreaming: c.streaming,
    capStructuredOutput: c.structured_output,
    capTools: c.tools,
  };
}

export function cardToRow(card: ModelCard): Prisma.ModelCreateInput {
  const p = card.pricing;
  const v = card.video;
  return {
    id: card.id,
    displayName: card.display_name,
    ownedBy: card.owned_by,
    provider: card.provider,
    type: card.type,
    contextLength: card.context_length,
    maxOutputTokens: card.max_output_tokens,
    knowledgeCutoff: card.knowledge_cutoff,
    deprecated: card.deprecated,
    ...capabilityColumns(card),
    priceInputPer1m: p.input_per_1m,
    priceCacheReadPer1m: p.cache_read_per_1m,
    priceCacheWritePer1m: p.cache_write_per_1m ?? "0",
    priceOutputPer1m: p.output_per_1m,
    priceReasoningPer1m: p.reasoning_per_1m,
    pricePer1mChars: p.per_1m_chars,
    pricePerAudioSecond: p.per_audio_second,
    pricePerImage: p.per_image,
    pricePerVideoSecond: p.per_video_second,
    pricingStatus: p.pricing_status,
    batchDiscount: p.batch_discount ?? "0.5",
    fineTunable: card.fine_tunable ?? false,
    priceTrainingPer1m: p.training_per_1m ?? "0",
    priceFtInputPer1m: p.fine_tuned_input_per_1m ?? "0",
    priceFtOutputPer1m: p.fine_tuned_output_per_1m ?? "0",
    ...(card.created ? { createdAt: new Date(card.created * 1000) } : {}),
    ...(v && {
      videoDefaultSize: v.default_size,
      videoFpsMin: v.fps.min,
      videoFpsMax: v.fps.max,
      videoFpsDefault: v.default_fps ?? v.fps.min,
      videoSecondsMin: v.seconds.min,
      videoSecondsMax: v.seconds.max,
      videoSizes: { create: v.supported_sizes.map((s) => ({ size: s.size, priceMultiplier: s.price_multiplier })) },
    }),
  };
}
