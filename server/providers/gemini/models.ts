// Gemini's model list, as the gateway's model cards (unpriced: the list gives no prices).
import type { UpstreamModel } from "../openai-compatible/list-models";
import type { UpstreamTarget } from "../http";
import { UpstreamFailure } from "../upstream-failure";

export async function listGeminiModels(_target: UpstreamTarget, _timeoutMs: number): Promise<UpstreamModel[]> {
  throw new UpstreamFailure("protocol", "the gemini model list is not available yet");
}
