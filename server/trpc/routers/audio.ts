import { createSpeech } from "../../inference/audio/speech";
import { ZSpeechRequest, ZTranscriptionRequest, ZTranslationRequest } from "../../inference/audio/schema";
import { transcribe, translate } from "../../inference/audio/transcribe";
import { billedProcedure, router } from "../init";

export const audioRouter = router({
  /** Audio bytes, streamed as the node sends them (a BinaryBody). */
  speech: billedProcedure.input(ZSpeechRequest).mutation(({ ctx, input }) => createSpeech({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  transcribe: billedProcedure.input(ZTranscriptionRequest).mutation(({ ctx, input }) => transcribe({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  translate: billedProcedure.input(ZTranslationRequest).mutation(({ ctx, input }) => translate({ principal: ctx.principal, requestId: ctx.requestId }, input)),
});
