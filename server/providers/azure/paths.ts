// Where Azure OpenAI serves an operation. With an api-version, the deployment is in the path
// (`/openai/deployments/<deployment>/chat/completions?api-version=<v>`); without one, the
// OpenAI-compatible v1 API (`/openai/v1/chat/completions`), where the body's `model` names the
// deployment. The adapter's body already carries the deployment (the node's name for the model).
import type { UpstreamTarget } from "../http";

export type AzureOperation = "chat/completions" | "embeddings";

/** The api-version of the data plane's deployment listing (the newer versions list none). */
export const DEPLOYMENTS_API_VERSION = "2022-12-01";

export function operationPath(target: UpstreamTarget, operation: AzureOperation, deployment: string): string {
  const apiVersion = target.cloud?.apiVersion;
  if (!apiVersion) return `/openai/v1/${operation}`;
  return `/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${encodeURIComponent(apiVersion)}`;
}

/** The node's model list: its deployments (data plane) with an api-version, the v1 API's models without. */
export function modelsPath(target: UpstreamTarget): string {
  return target.cloud?.apiVersion ? `/openai/deployments?api-version=${DEPLOYMENTS_API_VERSION}` : "/openai/v1/models";
}
