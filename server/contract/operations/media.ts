// Embeddings, audio and images.
import { createSpeech } from "../../inference/audio/speech";
import { ZSpeechRequest, ZTranscription, ZTranscriptionRequest, ZTranslationRequest } from "../../inference/audio/schema";
import { transcribe, translate } from "../../inference/audio/transcribe";
import { createEmbeddings } from "../../inference/embeddings/create-embeddings";
import { ZEmbeddingsRequest, ZEmbeddingsResult } from "../../inference/embeddings/schema";
import { editImages, generateImages, varyImages } from "../../inference/images/create-images";
import { readImageFile } from "../../inference/images/image-file";
import { ZImageEdit, ZImageFile, ZImageGeneration, ZImagesResult, ZImageVariation } from "../../inference/images/schema";
import { env } from "../../infra/env";
import { NODE_CALL } from "../errors";
import { operation } from "../operation";

const AUDIO_FORM = { kind: "multipart", files: ["file"], maxFileBytes: () => env.MAX_AUDIO_UPLOAD_BYTES } as const;
const IMAGE_FORM = { kind: "multipart", files: ["image", "mask"], maxFileBytes: () => env.MAX_IMAGE_UPLOAD_BYTES } as const;
const TRANSCRIPT = { kind: "binary", mediaTypes: ["text/plain", "application/x-subrip", "text/vtt"], jsonToo: true } as const;
const AUDIO_SECONDS = { kind: "upfront", unit: "audio_seconds", note: "seconds of the uploaded audio, decoded by the gateway, at per_audio_second" } as const;
const IMAGES = { kind: "upfront", unit: "images", note: "images returned, at per_image" } as const;

export const embeddingsCreate = operation({
  id: "embeddings.create",
  method: "POST",
  path: "/v1/embeddings",
  summary: "Create embeddings",
  tags: ["Embeddings"],
  kind: "mutation",
  tier: "billed",
  permission: "embeddings",
  x402: "upto",
  body: { kind: "json" },
  input: ZEmbeddingsRequest,
  output: ZEmbeddingsResult,
  produces: { kind: "json" },
  errors: NODE_CALL,
  pricing: { kind: "metered", unit: "tokens", note: "input tokens the node reports, at input_per_1m" },
  cached: true,
  guarded: "embeddings",
  handler: (ctx, input) => createEmbeddings(input, ctx.principal.workspaceId),
});

export const audioSpeech = operation({
  id: "audio.speech",
  method: "POST",
  path: "/v1/audio/speech",
  summary: "Synthesize speech (audio bytes, streamed)",
  tags: ["Audio"],
  kind: "mutation",
  tier: "billed",
  permission: "audio",
  x402: "exact",
  body: { kind: "json" },
  input: ZSpeechRequest,
  produces: { kind: "binary", mediaTypes: ["audio/mpeg", "audio/ogg", "audio/aac", "audio/flac", "audio/wav", "audio/pcm"] },
  errors: NODE_CALL,
  pricing: { kind: "upfront", unit: "characters", note: "characters of `input` (code points), at per_1m_chars" },
  handler: (ctx, input) => createSpeech(input, ctx.principal.workspaceId),
});

export const audioTranscribe = operation({
  id: "audio.transcribe",
  method: "POST",
  path: "/v1/audio/transcriptions",
  summary: "Transcribe audio",
  tags: ["Audio"],
  kind: "mutation",
  tier: "billed",
  permission: "audio",
  x402: "upto",
  body: AUDIO_FORM,
  input: ZTranscriptionRequest,
  output: ZTranscription,
  produces: TRANSCRIPT,
  errors: NODE_CALL,
  pricing: AUDIO_SECONDS,
  handler: (ctx, input) => transcribe(input, ctx.principal.workspaceId),
});

export const audioTranslate = operation({
  id: "audio.translate",
  method: "POST",
  path: "/v1/audio/translations",
  summary: "Translate audio into English text",
  tags: ["Audio"],
  kind: "mutation",
  tier: "billed",
  permission: "audio",
  x402: "upto",
  body: AUDIO_FORM,
  input: ZTranslationRequest,
  output: ZTranscription,
  produces: TRANSCRIPT,
  errors: NODE_CALL,
  pricing: AUDIO_SECONDS,
  handler: (ctx, input) => translate(input, ctx.principal.workspaceId),
});

export const imagesGenerate = operation({
  id: "images.generate",
  method: "POST",
  path: "/v1/images/generations",
  summary: "Generate images",
  tags: ["Images"],
  kind: "mutation",
  tier: "billed",
  permission: "images",
  x402: "exact",
  body: { kind: "json" },
  origin: true,
  input: ZImageGeneration,
  output: ZImagesResult,
  produces: { kind: "json" },
  errors: NODE_CALL,
  pricing: IMAGES,
  handler: (ctx, input) => generateImages(input, ctx.principal.workspaceId),
});

export const imagesEdit = operation({
  id: "images.edit",
  method: "POST",
  path: "/v1/images/edits",
  summary: "Edit an image",
  tags: ["Images"],
  kind: "mutation",
  tier: "billed",
  permission: "images",
  x402: "exact",
  body: IMAGE_FORM,
  origin: true,
  input: ZImageEdit,
  output: ZImagesResult,
  produces: { kind: "json" },
  errors: NODE_CALL,
  pricing: IMAGES,
  handler: (ctx, input) => editImages(input, ctx.principal.workspaceId),
});

export const imagesVary = operation({
  id: "images.vary",
  method: "POST",
  path: "/v1/images/variations",
  summary: "Create variations of an image",
  tags: ["Images"],
  kind: "mutation",
  tier: "billed",
  permission: "images",
  x402: "exact",
  body: IMAGE_FORM,
  origin: true,
  input: ZImageVariation,
  output: ZImagesResult,
  produces: { kind: "json" },
  errors: NODE_CALL,
  pricing: IMAGES,
  handler: (ctx, input) => varyImages(input, ctx.principal.workspaceId),
});

/** A stored image behind a signed, expiring link: the signature is the credential. */
export const imagesFile = operation({
  id: "images.file",
  method: "GET",
  path: "/v1/images/files/{name}",
  summary: "Download an image behind a signed link",
  tags: ["Images"],
  kind: "query",
  tier: "none",
  permission: null,
  body: { kind: "none" },
  query: true,
  input: ZImageFile,
  produces: { kind: "binary", mediaTypes: ["image/png", "image/jpeg", "image/webp"] },
  errors: {
    403: "The link's signature is not valid (`invalid_signature`).",
    404: "The link has expired (`image_expired`) or the image no longer exists (`image_not_found`).",
  },
  pricing: { kind: "free" },
  handler: (_ctx, input) => readImageFile(input),
});
