// Test-only speech, transcription and image models, served by a stand-in node (tests/fakes/media-upstream.ts).
import { cardToRow } from "../../server/routing/catalog/model-row";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { startMediaFake, type MediaFake } from "./media-upstream";

const zero = { input_per_1m: "0", cache_read_per_1m: "0", output_per_1m: "0", reasoning_per_1m: "0", per_1m_chars: "0", per_audio_second: "0", per_image: "0", per_video_second: "0", pricing_status: "active" };
const caps = { input_modalities: ["text"], output_modalities: ["text"], json_mode: false, reasoning: false, streaming: false, structured_output: false, tools: false };

function card(id: string, type: "speech" | "transcription" | "image", prices: Partial<typeof zero>) {
  return { id, display_name: id, owned_by: "tests", provider: "tests", type, context_length: 4096, max_output_tokens: 1, knowledge_cutoff: "2025-01", deprecated: false, capabilities: caps, pricing: { ...zero, ...prices } };
}

export type MediaModels = { fake: MediaFake; stop: () => Promise<void> };

export async function setUpMediaModels(prefix: string, models: { tts?: string; stt?: string; image?: string }): Promise<MediaModels> {
  const cards = [
    models.tts && card(models.tts, "speech", { per_1m_chars: "15" }),
    models.stt && card(models.stt, "transcription", { per_audio_second: "0.0001" }),
    models.image && card(models.image, "image", { per_image: "0.02" }),
  ].filter((c) => !!c);
  for (const c of cards) await db.model.create({ data: cardToRow(c) });
  const fake = await startMediaFake(cards.map((c) => c.id));
  const { node } = await addNode({ name: `${prefix}-media`, url: fake.url, city: "Lisbon", country: "PT" });
  await checkAllNodes();
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
  await new Promise((r) => setTimeout(r, 300));
  return {
    fake,
    stop: async () => {
      await removeNode(node.id).catch(() => undefined);
      await db.model.deleteMany({ where: { id: { in: cards.map((c) => c.id) } } });
      await fake.close();
    },
  };
}
