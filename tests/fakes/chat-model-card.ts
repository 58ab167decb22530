// A test-only chat model card (the shape nodes publish and the catalog imports), priced per 1M tokens.
export function chatModelCard(id: string, prices: { input: string; output: string } = { input: "0.3", output: "1.7" }) {
  return {
    id,
    display_name: id,
    owned_by: "tests",
    provider: "tests",
    type: "chat" as const,
    context_length: 8192,
    max_output_tokens: 1024,
    knowledge_cutoff: "2025-01",
    deprecated: false,
    capabilities: { input_modalities: ["text"], output_modalities: ["text"], json_mode: true, reasoning: false, streaming: true, structured_output: false, tools: true },
    pricing: {
      input_per_1m: prices.input,
      cache_read_per_1m: "0.1",
      output_per_1m: prices.output,
      reasoning_per_1m: prices.output,
      per_1m_chars: "0",
      per_audio_second: "0",
      per_image: "0",
      per_video_second: "0",
      pricing_status: "active",
    },
  };
}
