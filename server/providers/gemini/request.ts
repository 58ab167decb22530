// An OpenAI chat completion request -> Gemini's generateContent body. The fields Gemini has no
// place for are dropped (docs/PROVIDERS.md lists them); none is refused here.
import type { Json } from "../adapter";
import { toContents } from "./contents";
import { thinkingConfig } from "./thinking";
import type { GeminiGenerationConfig, GeminiRequest, Tool, ToolConfig } from "./types";

type ChatRequest = Json & {
  model: string;
  messages?: Json[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  n?: number | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  response_format?: { type?: string; json_schema?: { schema?: unknown } };
  tools?: { type?: string; function?: { name?: string; description?: string; parameters?: unknown } }[];
  tool_choice?: string | { type?: string; function?: { name?: string } };
  reasoning_effort?: string | null;
};

/** The model's name in Gemini's paths (`models/x` and `x` alike). */
export const geminiModelName = (model: string) => model.replace(/^models\//, "");

export function toGeminiRequest(body: Json): GeminiRequest {
  const req = body as ChatRequest;
  const { systemInstruction, contents } = toContents(req.messages ?? [], req.model);
  const tools = toolsOf(req.tools);
  const toolConfig = tools && toolConfigOf(req.tool_choice);
  const generationConfig = generationConfigOf(req);
  return {
    contents,
    ...(systemInstruction && { systemInstruction }),
    ...(tools && { tools }),
    ...(toolConfig && { toolConfig }),
    ...(Object.keys(generationConfig).length && { generationConfig }),
  };
}

const has = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

function generationConfigOf(req: ChatRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (has(maxTokens)) config.maxOutputTokens = maxTokens;
  if (has(req.stop)) config.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (has(req.temperature)) config.temperature = req.temperature;
  if (has(req.top_p)) config.topP = req.top_p;
  if (has(req.top_k)) config.topK = req.top_k;
  if (has(req.n)) config.candidateCount = req.n;
  if (has(req.seed)) config.seed = req.seed;
  if (has(req.presence_penalty)) config.presencePenalty = req.presence_penalty;
  if (has(req.frequency_penalty)) config.frequencyPenalty = req.frequency_penalty;
  const format = req.response_format?.type;
  if (format === "json_object" || format === "json_schema") config.responseMimeType = "application/json";
  if (format === "json_schema" && req.response_format?.json_schema?.schema) config.responseJsonSchema = req.response_format.json_schema.schema;
  const thinking = has(req.reasoning_effort) ? thinkingConfig(req.reasoning_effort, req.model) : undefined;
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

/** OpenAI's function tools -> one Gemini tool of function declarations (parameters as JSON Schema). */
function toolsOf(tools: ChatRequest["tools"]): Tool[] | undefined {
  const declarations = (tools ?? [])
    .filter((t) => t.type === "function" && t.function?.name)
    .map(({ function: f }) => ({
      name: f!.name,
      ...(f!.description && { description: f!.description }),
      ...(f!.parameters !== undefined && { parametersJsonSchema: f!.parameters }),
    }));
  return declarations.length ? [{ functionDeclarations: declarations }] : undefined;
}

const MODES: Record<string, ToolConfig["functionCallingConfig"]["mode"]> = { auto: "AUTO", required: "ANY", none: "NONE" };

function toolConfigOf(choice: ChatRequest["tool_choice"]): ToolConfig | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "object") {
    const name = choice.function?.name;
    return { functionCallingConfig: { mode: "ANY", ...(name && { allowedFunctionNames: [name] }) } };
  }
  const mode = MODES[choice];
  return mode && { functionCallingConfig: { mode } };
}
