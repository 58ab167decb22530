// Schemas of the JSON answers of /v1, as the API reference and OpenAI's API give them. They
// document the contract (the OpenAPI document); the API tests validate every answer against it.
import { z } from "zod";

export const ZDeleted = (object: string) => z.object({ id: z.string(), object: z.literal(object), deleted: z.boolean() });

export const ZHealth = z.object({ ok: z.boolean(), uptimeMs: z.number() });

export const ZChatCompletion = z.looseObject({ id: z.string(), object: z.literal("chat.completion"), created: z.number().int(), model: z.string(), choices: z.array(z.looseObject({})) });

export const ZResponseObject = z.looseObject({ id: z.string(), object: z.literal("response"), status: z.string(), model: z.string() });

export const ZInputItemsList = z.looseObject({ object: z.literal("list"), data: z.array(z.looseObject({})), has_more: z.boolean() });

export const ZEmbeddingsResult = z.looseObject({ object: z.literal("list"), model: z.string(), data: z.array(z.looseObject({})) });

export const ZTranscription = z.looseObject({ text: z.string() });

export const ZImagesResult = z.looseObject({ created: z.number().int(), data: z.array(z.looseObject({})) });

export const ZVideoJob = z.looseObject({ id: z.string(), object: z.string(), status: z.string(), model: z.string() });

export const ZVideoList = z.looseObject({ object: z.literal("list"), data: z.array(ZVideoJob) });

export const ZNetworkStatus = z.looseObject({ nodesOnline: z.number().int(), modelsAvailable: z.number().int() });
