// Gemini's REST shapes (generativelanguage v1beta), as far as the adapter reads or writes them.
// Parts, contents and configs are the official SDK's types; where the REST body differs from
// the SDK's (the request's `generationConfig`, the model list's `supportedGenerationMethods`,
// lower-case thinking levels) the shape is stated here.
import type {
  Candidate,
  Content,
  ContentEmbedding,
  FinishReason,
  FunctionCallingConfigMode,
  GenerateContentResponse,
  GenerationConfig,
  Part,
  ThinkingConfig,
  Tool,
} from "@google/genai";

export type { Candidate, Content, Part, Tool };

export type ToolConfig = { functionCallingConfig: { mode: `${FunctionCallingConfigMode}`; allowedFunctionNames?: string[] } };

/** A thinking level as the REST API takes it (Gemini 3 models). */
export type ThinkingLevel = "minimal" | "low" | "medium" | "high";

export type GeminiGenerationConfig = Omit<GenerationConfig, "thinkingConfig"> & {
  thinkingConfig?: Omit<ThinkingConfig, "thinkingLevel"> & { thinkingLevel?: ThinkingLevel };
};

/** The body of `models/{model}:generateContent` and `:streamGenerateContent`. */
export type GeminiRequest = {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: ToolConfig;
  generationConfig?: GeminiGenerationConfig;
};

/** One answer of generateContent, or one event of its stream. */
export type GeminiResponse = Pick<GenerateContentResponse, "candidates" | "promptFeedback" | "usageMetadata" | "modelVersion" | "responseId">;

export type GeminiUsage = NonNullable<GenerateContentResponse["usageMetadata"]>;

/** A finish reason's name as it arrives in JSON. */
export type GeminiFinishReason = `${FinishReason}`;

/** The body of `models/{model}:batchEmbedContents` and its answer. */
export type GeminiBatchEmbedRequest = {
  requests: { model: string; content: Content; outputDimensionality?: number }[];
};
export type GeminiBatchEmbedResponse = { embeddings?: ContentEmbedding[] };

/** One model of `GET /models`, as the REST API lists it. */
export type GeminiModel = {
  name: string;
  baseModelId?: string;
  version?: string;
  displayName?: string;
  description?: string;
  inputTokenLimit?: number;
  outputTokenLimit?: number;
  supportedGenerationMethods?: string[];
  thinking?: boolean;
};
export type GeminiModelList = { models?: GeminiModel[]; nextPageToken?: string };

/** Gemini's error body: `{error: {code, message, status}}`. */
export type GeminiError = { error: { code: number; message: string; status: string } };
