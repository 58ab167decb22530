// A Bedrock node's models, from Bedrock's control plane (GET /foundation-models and
// /inference-profiles, signed as the runtime's calls are): the foundation models callable on
// demand, and the region's active inference profiles (for many new models the only way to call
// them). A node given an --endpoint (a VPC endpoint, a stand-in) is asked on that endpoint.
import type { UpstreamTarget } from "../http";
import { request } from "../http";
import type { UpstreamModel } from "../openai-compatible/list-models";
import { UpstreamFailure } from "../upstream-failure";
import { mapped } from "./failures";
import { modelCard } from "./model-card";
import type { FoundationModelSummary, InferenceProfileSummary } from "./types";

/** A nextToken loop that never ends is a broken node, not a long list. */
const MAX_PAGES = 50;

/** The control plane beside a runtime endpoint (bedrock-runtime.<region> -> bedrock.<region>); any other endpoint serves both. */
export const controlPlaneUrl = (runtime: string) => runtime.replace(/^https:\/\/bedrock-runtime(-fips)?\.([a-z0-9-]+)\.amazonaws\.com/, "https://bedrock$1.$2.amazonaws.com");

async function getJson(target: UpstreamTarget, path: string, signal: AbortSignal): Promise<Record<string, unknown>> {
  let text: string;
  try {
    const res = await mapped(request(target, "GET", path, { headers: { accept: "application/json" }, signal }));
    text = await res.body.text();
  } catch (err) {
    if (signal.aborted) throw new UpstreamFailure("timeout", "timed out");
    if (err instanceof UpstreamFailure && err.kind === "status") throw new UpstreamFailure("status", `HTTP ${err.status}`, err.status);
    throw err;
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UpstreamFailure("protocol", `invalid ${path} response`);
  }
}

async function profiles(target: UpstreamTarget, signal: AbortSignal): Promise<InferenceProfileSummary[]> {
  const out: InferenceProfileSummary[] = [];
  let next: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await getJson(target, `/inference-profiles?maxResults=1000${next ? `&nextToken=${encodeURIComponent(next)}` : ""}`, signal);
    if (!Array.isArray(body.inferenceProfileSummaries)) throw new UpstreamFailure("protocol", "invalid /inference-profiles response");
    out.push(...(body.inferenceProfileSummaries as InferenceProfileSummary[]));
    next = typeof body.nextToken === "string" && body.nextToken ? body.nextToken : undefined;
    if (!next) break;
  }
  return out;
}

export async function listBedrockModels(target: UpstreamTarget, timeoutMs: number): Promise<UpstreamModel[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  const plane = { ...target, baseUrl: controlPlaneUrl(target.baseUrl) };
  const [list, profileList] = await Promise.all([getJson(plane, "/foundation-models", signal), profiles(plane, signal)]);
  if (!Array.isArray(list.modelSummaries)) throw new UpstreamFailure("protocol", "invalid /foundation-models response");
  const summaries = new Map((list.modelSummaries as FoundationModelSummary[]).filter((m) => typeof m?.modelId === "string").map((m) => [m.modelId, m]));
  const onDemand = [...summaries.values()].filter((m) => m.inferenceTypesSupported?.includes("ON_DEMAND")).map((m) => modelCard(m.modelId, m));
  const profiled = profileList
    .filter((p) => typeof p?.inferenceProfileId === "string" && (p.status ?? "ACTIVE") === "ACTIVE")
    .map((p) => modelCard(p.inferenceProfileId, summaries.get(p.models?.[0]?.modelArn?.split("/").pop() ?? ""), p.inferenceProfileName));
  return [...onDemand, ...profiled].filter((card): card is UpstreamModel => card !== null);
}
