// Azure's streams are OpenAI's chunks plus its content filter's annotations. The annotations on a
// choice (`content_filter_results`) ride along unchanged; the chunk Azure sends before any
// choice, with only the prompt's annotations (`choices: []`, `prompt_filter_results`, an empty
// `id` and `model`), is dropped: to a client it would look like a usage chunk with no usage, and
// nothing in it is the answer's. Azure's chunks name the model the deployment runs
// (`gpt-4o-2024-08-06`), not the deployment: they are given the deployment's name, which the
// relay then renames to the gateway's model id, as it does any node's.
import type { Json, StreamTranslator } from "../adapter";

function annotationOnly(data: string): boolean {
  if (!data.includes('"prompt_filter_results"')) return false;
  const chunk = JSON.parse(data) as Json;
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && !chunk.usage;
}

/** The chunk's `model` (the first: a chunk has one, before any content) as the deployment. JSON strings escape their quotes, so no text inside one matches. */
const MODEL_FIELD = /"model"\s*:\s*"(?:[^"\\]|\\.)*"/;

/** Passes Azure's chunks on, less its prompt annotations, named after the deployment; done at `[DONE]`. */
export function azureStreamTranslator(deployment: string): StreamTranslator {
  const named = `"model":${JSON.stringify(deployment)}`;
  let done = false;
  return {
    push(data) {
      if (data === "[DONE]") {
        done = true;
        return [];
      }
      return annotationOnly(data) ? [] : [data.replace(MODEL_FIELD, named)];
    },
    end: () => [],
    get done() {
      return done;
    },
  };
}
