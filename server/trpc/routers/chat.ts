import { createChatCompletion } from "../../inference/chat/create-completion";
import { ZChatCompletionRequest } from "../../inference/chat/schema";
import { billedProcedure, router } from "../init";

export const chatRouter = router({
  /** A chat.completion object, or (stream: true) an async iterable of chunk payloads. */
  createCompletion: billedProcedure
    .input(ZChatCompletionRequest)
    .mutation(({ ctx, input }) => createChatCompletion({ principal: ctx.principal, requestId: ctx.requestId }, input)),
});
