// Where a Gemini method is: under the node's base URL, by model. (Its status failures and an
// unreadable answer are http.ts's, Gemini's error body `{error: {code, message, status}}` kept for the router.)
import { geminiModelName } from "./request";

/** `models/{model}:{method}` under the node's base URL (which ends in /v1beta). */
export const methodPath = (model: string, method: string) => `/models/${encodeURIComponent(geminiModelName(model))}:${method}`;
