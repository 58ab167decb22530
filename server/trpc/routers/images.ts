import { editImages, generateImages, varyImages } from "../../inference/images/create-images";
import { readImageFile } from "../../inference/images/image-file";
import { ZImageEdit, ZImageFile, ZImageGeneration, ZImageVariation } from "../../inference/images/schema";
import { billedProcedure, publicProcedure, router } from "../init";

export const imagesRouter = router({
  generate: billedProcedure.input(ZImageGeneration).mutation(({ ctx, input }) => generateImages({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  edit: billedProcedure.input(ZImageEdit).mutation(({ ctx, input }) => editImages({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  vary: billedProcedure.input(ZImageVariation).mutation(({ ctx, input }) => varyImages({ principal: ctx.principal, requestId: ctx.requestId }, input)),
  /** A stored image behind a signed link: the signature is the credential. */
  file: publicProcedure.input(ZImageFile).query(({ input }) => readImageFile(input)),
});
