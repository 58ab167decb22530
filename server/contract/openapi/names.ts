// Names of the schemas in the document's `components.schemas`: the answers every client sees,
// each a $ref wherever it appears. An output with no name here is named after its operation.
import type { z } from "zod";
import { zodToOpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { ZCapabilities, ZModelDetail, ZModelObject, ZPricing, ZVideoBlock } from "../../routing/catalog/model-card";
import { operations } from "../index";
import * as out from "../outputs";

/** Output schemas with a name in `components.schemas` (wherever they appear, they are a $ref). */
const NAMED_SCHEMAS: [z.ZodType, string][] = [
  [out.ZChatCompletion, "ChatCompletion"],
  [out.ZChatUsage, "ChatCompletionUsage"],
  [out.ZResponseObject, "Response"],
  [out.ZOutputItem, "ResponseOutputItem"],
  [out.ZInputItem, "ResponseInputItem"],
  [out.ZResponsesUsage, "ResponseUsage"],
  [out.ZInputItemsList, "ResponseInputItemList"],
  [out.ZEmbeddingsResult, "EmbeddingsResult"],
  [out.ZTranscription, "Transcription"],
  [out.ZImagesResult, "ImagesResult"],
  [out.ZVideoJob, "VideoGenerationJob"],
  [out.ZVideoList, "VideoGenerationJobList"],
  [out.ZNetworkStatus, "NetworkStatus"],
  [out.ZHealth, "Health"],
  [out.ZOpenApiDocument, "OpenApiDocument"],
  [ZModelObject, "Model"],
  [ZModelDetail, "ModelDetail"],
  [ZCapabilities, "ModelCapabilities"],
  [ZPricing, "ModelPricing"],
  [ZVideoBlock, "ModelVideoRanges"],
  [out.ZModelList, "ModelList"],
  [out.ZModelDeleted, "ModelDeleted"],
  [out.ZResponseDeleted, "ResponseDeleted"],
  [out.ZVideoDeleted, "VideoGenerationJobDeleted"],
];

const pascal = (id: string) => id.replace(/(^|[._-])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

function nameSchema(schema: z.ZodType, name: string): void {
  zodToOpenAPIRegistry.add(schema, { ...zodToOpenAPIRegistry.get(schema), _internal: { refId: name } });
}

/** Names every output schema (once per process: the registry is global). */
export function nameSchemas(): void {
  for (const [schema, name] of NAMED_SCHEMAS) nameSchema(schema, name);
  for (const op of operations) if (op.output && !zodToOpenAPIRegistry.get(op.output)) nameSchema(op.output, `${pascal(op.id)}Result`);
  nameSchema(out.ZErrorBody, "Error");
}
