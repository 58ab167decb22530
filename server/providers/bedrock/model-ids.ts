// Bedrock's model ids: a foundation model's (`anthropic.claude-sonnet-4-5-20250929-v1:0`), or a
// cross-region inference profile's, which is the same id behind a geography
// (`us.`, `eu.`, `apac.`, `global.`...). What a call does depends on the model behind it: Claude
// speaks Anthropic's Messages API over InvokeModel, the embedding models their own InvokeModel
// bodies, every other chat model the Converse API.

const PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

/** The foundation model behind an id, its inference profile's geography taken off. */
export function foundationModelId(id: string): string {
  return id.replace(PROFILE_PREFIX, "");
}

export const isAnthropicModel = (id: string) => foundationModelId(id).startsWith("anthropic.");
export const isTitanEmbedding = (id: string) => foundationModelId(id).startsWith("amazon.titan-embed-");
export const isCohereEmbedding = (id: string) => foundationModelId(id).startsWith("cohere.embed-");

/** A runtime path for a model: `/model/{id}/{action}`, the id escaped as the SDK escapes it (a version's `:` too). */
export function modelPath(model: string, action: "converse" | "converse-stream" | "invoke" | "invoke-with-response-stream"): string {
  return `/model/${encodeURIComponent(model)}/${action}`;
}
