import { createSpeech } from "../../audio/speech";
import { ZSpeechRequest, ZTranscriptionRequest, ZTranslationRequest } from "../../audio/schema";
import { transcribe, translate } from "../../audio/transcribe";
import { apiKeyProcedure, router } from "../init";

export const audioRouter = router({
  /** Audio bytes, streamed as the node sends them (a BinaryBody). */
  speech: apiKeyProcedure.input(ZSpeechRequest).mutation(({ ctx, input }) => createSpeech({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  transcribe: apiKeyProcedure.input(ZTranscriptionRequest).mutation(({ ctx, input }) => transcribe({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  translate: apiKeyProcedure.input(ZTranslationRequest).mutation(({ ctx, input }) => translate({ principal: ctx.principal, requestId: ctx.requestId }, input)),
});
