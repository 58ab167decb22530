// Every /v1 operation (and /health), in one list: what the transports, tRPC and the OpenAPI
// document are derived from. Adding a route is one declaration here plus its service.
import { healthCheck, modelsDelete, modelsGet, modelsList, networkStatusOp } from "./operations/catalog";
import { audioSpeech, audioTranscribe, audioTranslate, embeddingsCreate, imagesEdit, imagesFile, imagesGenerate, imagesVary } from "./operations/media";
import { documentOperation } from "./operations/document";
import { messagesCountTokens, messagesCreate } from "./operations/messages";
import { jwksDocument, sessionsCreate, sessionsRevoke, sessionsRevokeSubject } from "./operations/sessions";
import { chatCreateCompletion, responsesCancel, responsesCreate, responsesDelete, responsesGet, responsesInputItems } from "./operations/text";
import { videosContent, videosCreate, videosDelete, videosGet, videosList } from "./operations/videos";
import { filesOperations } from "./operations/files";
import { batchesOperations } from "./operations/batches";
import { fineTuningOperations } from "./operations/fine-tuning";
import { conversationsOperations } from "./operations/conversations";
import { moderationsOperations } from "./operations/moderations";
import type { AnyOperation } from "./operation";

/** Grouped by tRPC router: `chat.createCompletion` is `contract.chat.createCompletion`. */
export const contract = {
  chat: { createCompletion: chatCreateCompletion },
  responses: { create: responsesCreate, get: responsesGet, delete: responsesDelete, cancel: responsesCancel, inputItems: responsesInputItems },
  messages: { create: messagesCreate, countTokens: messagesCountTokens },
  embeddings: { create: embeddingsCreate },
  audio: { speech: audioSpeech, transcribe: audioTranscribe, translate: audioTranslate },
  images: { generate: imagesGenerate, edit: imagesEdit, vary: imagesVary, file: imagesFile },
  conversations: conversationsOperations,
  moderations: moderationsOperations,
  files: filesOperations,
  batches: batchesOperations,
  fineTuning: fineTuningOperations,
  videos: { create: videosCreate, list: videosList, get: videosGet, delete: videosDelete, content: videosContent },
  models: { list: modelsList, get: modelsGet, delete: modelsDelete },
  sessions: { create: sessionsCreate, revoke: sessionsRevoke, revokeSubject: sessionsRevokeSubject, jwks: jwksDocument },
  network: { status: networkStatusOp },
  health: { check: healthCheck },
  openapi: { document: documentOperation(async () => (await import("./openapi")).openApiDocument(operations)) },
} as const;

export const operations: AnyOperation[] = Object.values(contract).flatMap((group) => Object.values(group) as AnyOperation[]);
