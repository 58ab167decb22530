// Anthropic's model list (GET /v1/models, paged with after_id), as the gateway's model cards:
// unpriced, since the list gives no prices (an operator prices a model before it is served).
import type { ModelInfo } from "@anthropic-ai/sdk/resources/models";
import type { UpstreamModel } from "../openai-compatible/list-models";
import type { UpstreamTarget } from "../http";
import { getListJson, UNPRICED } from "../list-json";
import { UpstreamFailure } from "../upstream-failure";
import { wireHeaders } from "../wire";

/** When the list does not say: Anthropic's context window of its current models. */
export const DEFAULT_CONTEXT_LENGTH = 200_000;
/** When the list does not say: an output limit every current Claude model allows. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
/** A guard against a list whose pages never end. */
const MAX_PAGES = 50;

type Page = { data?: unknown; has_more?: boolean; last_id?: string | null };

async function getPage(target: UpstreamTarget, afterId: string | null, signal: AbortSignal): Promise<Page> {
  const url = `${target.baseUrl.replace(/\/+$/, "")}/models?limit=1000${afterId ? `&after_id=${encodeURIComponent(afterId)}` : ""}`;
  const page = (await getListJson(url, wireHeaders("anthropic", target.apiKey), signal)) as Page;
  if (!Array.isArray(page.data)) throw new UpstreamFailure("protocol", "invalid /models response");
  return page;
}

/** A listed model as a chat model card; the list's limits and capabilities where it gives them. */
export function modelCard(m: ModelInfo): UpstreamModel {
  const caps = m.capabilities;
  const created = Date.parse(m.created_at);
  return {
    id: m.id,
    display_name: m.display_name || m.id,
    ...(Number.isFinite(created) && { created: Math.floor(created / 1000) }),
    owned_by: "anthropic",
    provider: "anthropic",
    type: "chat",
    context_length: m.max_input_tokens ?? DEFAULT_CONTEXT_LENGTH,
    max_output_tokens: m.max_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    knowledge_cutoff: "",
    deprecated: false,
    capabilities: {
      input_modalities: caps?.image_input?.supported === false ? ["text"] : ["text", "image"],
      output_modalities: ["text"],
      json_mode: true,
      reasoning: caps?.thinking?.supported ?? true,
      streaming: true,
      structured_output: caps?.structured_outputs?.supported ?? true,
      tools: true,
    },
    pricing: UNPRICED,
  };
}

/**
 * The models the node lists. A failure is an UpstreamFailure with a short message (`timed out`,
 * `connection failed`, `HTTP 401`, `invalid /models response`), as the OpenAI-format lister's.
 */
export async function listAnthropicModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]> {
  const models: UpstreamModel[] = [];
  let afterId: string | null = null;
  const signal = AbortSignal.timeout(timeoutMs);
  for (let page = 0; page < MAX_PAGES; page++) {
    const { data, has_more, last_id } = await getPage(target, afterId, signal);
    for (const m of data as ModelInfo[]) if (typeof m?.id === "string") models.push(modelCard(m));
    if (!has_more || !last_id) break;
    afterId = last_id;
  }
  return models;
}
