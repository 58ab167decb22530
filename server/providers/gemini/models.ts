// Gemini's model list (GET {baseUrl}/models, page by page) as the gateway's model cards:
// generateContent models as chat, embedContent models as embedding, the rest skipped; unpriced
// (the list gives no prices: an operator prices a model before it is served). One deadline
// for every page.
import type { UpstreamModel } from "../openai-compatible/list-models";
import type { UpstreamTarget } from "../http";
import { getListJson } from "../list-json";
import { UpstreamFailure } from "../upstream-failure";
import { wireHeaders } from "../wire";
import { modelCard } from "./model-card";
import type { GeminiModel, GeminiModelList } from "./types";

/** A page-token loop that never ends is a broken node, not a long list. */
const MAX_PAGES = 50;

export async function listGeminiModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  const models: GeminiModel[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await fetchPage(target, pageToken, signal);
    models.push(...(list.models ?? []));
    pageToken = list.nextPageToken;
    if (!pageToken) break;
  }
  return models.flatMap((m) => {
    const card = typeof m?.name === "string" ? modelCard(m) : null;
    return card ? [card] : [];
  });
}

async function fetchPage(target: UpstreamTarget, pageToken: string | undefined, signal: AbortSignal): Promise<GeminiModelList> {
  const url = new URL(`${target.baseUrl.replace(/\/+$/, "")}/models`);
  url.searchParams.set("pageSize", "1000");
  if (pageToken) url.searchParams.set("pageToken", pageToken);
  const body = (await getListJson(url, wireHeaders("gemini", target.apiKey), signal)) as GeminiModelList;
  if (body.models !== undefined && !Array.isArray(body.models)) throw new UpstreamFailure("protocol", "invalid /models response");
  return body;
}
