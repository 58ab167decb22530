// What the built-in node serves. It publishes full model cards (the gateway's model shape,
// part 2.7 of the API reference) in /v1/models, so the gateway can import them into its catalog.
// Which outputs are real and which simulated is documented in docs/LOCAL-NODE.md.

const CREATED = 1767225600; // 2026-01-01T00:00:00Z

const noPrices = {
  cache_read_per_1m: "0",
  input_per_1m: "0",
  output_per_1m: "0",
  per_1m_chars: "0",
  per_audio_second: "0",
  per_image: "0",
  per_video_second: "0",
  reasoning_per_1m: "0",
  training_per_1m: "0",
  fine_tuned_input_per_1m: "0",
  fine_tuned_output_per_1m: "0",
  pricing_status: "active",
};

const noCaps = { json_mode: false, reasoning: false, streaming: false, structured_output: false, tools: false };

type Card = Record<string, unknown> & { id: string };

function card(id: string, fields: Record<string, unknown>): Card {
  return {
    id,
    object: "model",
    created: CREATED,
    owned_by: "local-node",
    provider: "local",
    knowledge_cutoff: "2025-12",
    deprecated: false,
    fine_tunable: false,
    ...fields,
  };
}

export const MODELS: Card[] = [
  card("local-chat-sim", {
    display_name: "Local Chat (simulated)",
    type: "chat",
    // fine-tuning trains a real model on the file (docs/LOCAL-NODE.md, "Fine-tuning")
    fine_tunable: true,
    context_length: 32768,
    max_output_tokens: 4096,
    capabilities: { ...noCaps, input_modalities: ["text"], output_modalities: ["text"], json_mode: true, streaming: true, structured_output: true, tools: true },
    pricing: { ...noPrices, input_per_1m: "0.15", cache_read_per_1m: "0.075", output_per_1m: "0.6", reasoning_per_1m: "0.6" },
  }),
  card("local-embed-ngram", {
    display_name: "Local Embeddings (hashed n-grams)",
    type: "embedding",
    context_length: 8192,
    max_output_tokens: 1,
    capabilities: { ...noCaps, input_modalities: ["text"], output_modalities: ["embedding"] },
    pricing: { ...noPrices, input_per_1m: "0.02" },
  }),
  // Free: a word-list classifier (obscenity's English dataset), documented in docs/MODERATION.md.
  card("local-moderation", {
    display_name: "Local Moderation (profanity and slurs, English text only)",
    type: "moderation",
    context_length: 32768,
    max_output_tokens: 1,
    capabilities: { ...noCaps, input_modalities: ["text"], output_modalities: ["moderation"] },
    pricing: { ...noPrices },
  }),
  card("local-tts", {
    display_name: "Local Speech",
    type: "speech",
    context_length: 4096,
    max_output_tokens: 1,
    capabilities: { ...noCaps, input_modalities: ["text"], output_modalities: ["audio"], streaming: true },
    pricing: { ...noPrices, per_1m_chars: "15" },
  }),
  card("local-stt", {
    display_name: "Local Transcription",
    type: "transcription",
    context_length: 1,
    max_output_tokens: 4096,
    capabilities: { ...noCaps, input_modalities: ["audio"], output_modalities: ["text"] },
    pricing: { ...noPrices, per_audio_second: "0.0001" },
  }),
  card("local-image", {
    display_name: "Local Image Renderer",
    type: "image",
    context_length: 4000,
    max_output_tokens: 1,
    capabilities: { ...noCaps, input_modalities: ["text", "image"], output_modalities: ["image"] },
    pricing: { ...noPrices, per_image: "0.02" },
  }),
  card("local-video", {
    display_name: "Local Video Renderer",
    type: "video",
    context_length: 4000,
    max_output_tokens: 1,
    capabilities: { ...noCaps, input_modalities: ["text", "image"], output_modalities: ["video"] },
    pricing: { ...noPrices, per_video_second: "0.05" },
    video: {
      default_size: "640x360",
      default_fps: 24,
      fps: { min: 8, max: 30 },
      seconds: { min: 1, max: 10 },
      supported_sizes: [
        { size: "320x180", price_multiplier: "0.5" },
        { size: "640x360", price_multiplier: "1" },
        { size: "1280x720", price_multiplier: "2.5" },
      ],
    },
  }),
];
