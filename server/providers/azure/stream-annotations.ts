// Azure's streams are OpenAI's chunks plus its content filter's annotations. The annotations on a
// choice (`content_filter_results`) ride along unchanged; the chunk Azure sends before any
// choice, with only the prompt's annotations (`choices: []`, `prompt_filter_results`, an empty
// `id` and `model`), is dropped: to a client it would look like a usage chunk with no usage, and
// nothing in it is the answer's.
import type { Json, StreamTranslator } from "../adapter";

function annotationOnly(data: string): boolean {
  if (!data.includes('"prompt_filter_results"')) return false;
  const chunk = JSON.parse(data) as Json;
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && !chunk.usage;
}

/** Passes Azure's chunks on, less its prompt annotations; done at `[DONE]`. */
export function azureStreamTranslator(): StreamTranslator {
  let done = false;
  return {
    push(data) {
      if (data === "[DONE]") {
        done = true;
        return [];
      }
      return annotationOnly(data) ? [] : [data];
    },
    end: () => [],
    get done() {
      return done;
    },
  };
}
