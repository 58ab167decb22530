// Where Vertex AI's methods are: publisher models under the node's project and location, Gemini
// models Google's (`publishers/google`), Claude models Anthropic's (`publishers/anthropic`).
import type { CloudSettings } from "../cloud";
import { UpstreamFailure } from "../upstream-failure";

export type Publisher = "google" | "anthropic";

/** Claude on Vertex (`claude-sonnet-4-5@20250929`, `claude-opus-4-1`...) is Anthropic's; every other model is Google's. */
export const publisherOf = (model: string): Publisher => (/^claude-/.test(model) ? "anthropic" : "google");

/** A model's id in a path: encoded, but its version's `@` kept as Vertex writes it. */
const segment = (model: string) => encodeURIComponent(model).replace(/%40/g, "@");

/** `/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}` under the node's endpoint. */
export function methodPath(settings: CloudSettings | undefined, model: string, method: string): string {
  const { project, location } = settings ?? {};
  // The node was stored with both (spec.ts's endpoint refuses it otherwise): a target without them is a broken row.
  if (!project || !location) throw new UpstreamFailure("protocol", "the vertex node has no project or location", 502);
  return `/v1/projects/${project}/locations/${location}/publishers/${publisherOf(model)}/models/${segment(model)}:${method}`;
}
