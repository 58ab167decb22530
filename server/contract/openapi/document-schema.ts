// What GET /openapi.json answers: the document this folder builds, named as far as a client may
// rely on it. Apart from the builder, so that declaring the route does not load the generator.
import { z } from "zod";

export const ZOpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}),
});
