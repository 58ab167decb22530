// Bedrock's own shapes as they travel in JSON (the Converse API, its stream's events, the
// control plane's lists). Blobs (image and document bytes, redacted reasoning) are base64 text
// on this wire; the SDK's types hold them as Uint8Array, hence these.

export type ConverseContentBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } | { s3Location: { uri: string } } } }
  | { document: { format: string; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: ({ text: string } | { json: unknown } | { image: unknown } | { document: unknown })[]; status?: "success" | "error" } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: string } }
  | { cachePoint: { type: "default" } };

export type ConverseMessage = { role: "user" | "assistant"; content: ConverseContentBlock[] };

export type ConverseTool = { toolSpec: { name: string; description?: string; inputSchema: { json: unknown } } } | { cachePoint: { type: "default" } };
export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export type ConverseRequest = {
  messages: ConverseMessage[];
  system?: ({ text: string } | { cachePoint: { type: "default" } })[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
  additionalModelRequestFields?: Record<string, unknown>;
};

export type ConverseUsage = { inputTokens?: number; outputTokens?: number; totalTokens?: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };

export type ConverseResponse = {
  output?: { message?: { role: string; content?: ConverseContentBlock[] } };
  stopReason?: string;
  usage?: ConverseUsage;
};

/** One event of ConverseStream, as the SDK's ConverseStreamOutput union has it: its type is its one key. */
export type ConverseStreamEvent = {
  messageStart?: { role: string };
  contentBlockStart?: { contentBlockIndex: number; start?: { toolUse?: { toolUseId: string; name: string } } };
  contentBlockDelta?: {
    contentBlockIndex: number;
    delta?: { text?: string; toolUse?: { input?: string }; reasoningContent?: { text?: string; signature?: string; redactedContent?: string } };
  };
  contentBlockStop?: { contentBlockIndex: number };
  messageStop?: { stopReason?: string };
  metadata?: { usage?: ConverseUsage };
} & Record<string, unknown>;

export type FoundationModelSummary = {
  modelId: string;
  modelName?: string;
  providerName?: string;
  inputModalities?: string[];
  outputModalities?: string[];
  responseStreamingSupported?: boolean;
  inferenceTypesSupported?: string[];
  modelLifecycle?: { status?: string };
};

export type InferenceProfileSummary = {
  inferenceProfileId: string;
  inferenceProfileName?: string;
  status?: string;
  models?: { modelArn?: string }[];
};
