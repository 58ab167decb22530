// Names of the schemas in the document's `components.schemas`: the answers every client sees,
// each a $ref wherever it appears. An output with no name here is named after its operation.
import type { z } from "zod";
import { zodToOpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { ZTranscription } from "../../inference/audio/schema";
import { ZChatCompletion, ZChatUsage } from "../../inference/chat/schema";
import { ZEmbeddingsResult } from "../../inference/embeddings/schema";
import { ZImagesResult } from "../../inference/images/schema";
import { ZInputItemsList, ZOutputItem, ZResponseDeleted, ZResponseObject, ZResponsesUsage, ZStoredInputItem } from "../../inference/responses/answer-schema";
import { ZVideoDeleted, ZVideoJob, ZVideoListPage } from "../../inference/videos/schema";
import { ZAnthropicErrorBody, ZErrorBody } from "../../kernel/answer-schemas";
import { ZMessage, ZTokenCount } from "../../inference/messages/schema";
import { ZModelDeleted, ZModelList } from "../../routing/catalog/model-answers";
import { ZCapabilities, ZModelDetail, ZModelObject, ZPricing, ZVideoBlock } from "../../routing/catalog/model-card";
import { ZNetworkStatus } from "../../routing/nodes/network-status-schema";
import type { AnyOperation } from "../operation";
import { ZOpenApiDocument } from "./document-schema";

/** Output schemas with a name in `components.schemas` (wherever they appear, they are a $ref). */
const NAMED_SCHEMAS: [z.ZodType, string][] = [
  [ZChatCompletion, "ChatCompletion"],
  [ZChatUsage, "ChatCompletionUsage"],
  [ZResponseObject, "Response"],
  [ZOutputItem, "ResponseOutputItem"],
  [ZStoredInputItem, "ResponseInputItem"],
  [ZResponsesUsage, "ResponseUsage"],
  [ZInputItemsList, "ResponseInputItemList"],
  [ZEmbeddingsResult, "EmbeddingsResult"],
  [ZTranscription, "Transcription"],
  [ZImagesResult, "ImagesResult"],
  [ZVideoJob, "VideoGenerationJob"],
  [ZVideoListPage, "VideoGenerationJobList"],
  [ZNetworkStatus, "NetworkStatus"],
  [ZOpenApiDocument, "OpenApiDocument"],
  [ZModelObject, "Model"],
  [ZModelDetail, "ModelDetail"],
  [ZCapabilities, "ModelCapabilities"],
  [ZPricing, "ModelPricing"],
  [ZVideoBlock, "ModelVideoRanges"],
  [ZModelList, "ModelList"],
  [ZModelDeleted, "ModelDeleted"],
  [ZResponseDeleted, "ResponseDeleted"],
  [ZVideoDeleted, "VideoGenerationJobDeleted"],
  [ZMessage, "AnthropicMessage"],
  [ZTokenCount, "AnthropicTokenCount"],
];

const pascal = (id: string) => id.replace(/(^|[._-])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

function nameSchema(schema: z.ZodType, name: string): void {
  zodToOpenAPIRegistry.add(schema, { ...zodToOpenAPIRegistry.get(schema), _internal: { refId: name } });
}

/** Outputs declared in their operation itself, named by the operation's id. */
const NAMED_OUTPUTS: Record<string, string> = { "health.check": "Health" };

/** Names every output schema (once per process: the registry is global). */
export function nameSchemas(operations: readonly AnyOperation[]): void {
  for (const [schema, name] of NAMED_SCHEMAS) nameSchema(schema, name);
  for (const op of operations) if (op.output && !zodToOpenAPIRegistry.get(op.output)) nameSchema(op.output, NAMED_OUTPUTS[op.id] ?? `${pascal(op.id)}Result`);
  nameSchema(ZErrorBody, "Error");
  nameSchema(ZAnthropicErrorBody, "AnthropicError");
}
