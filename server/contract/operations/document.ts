// The contract's own description: the OpenAPI 3.1 document, built from the declarations
// (openapi/index.ts) and served like any operation, without a credential.
import { z } from "zod";
import { operation } from "../operation";
import { ZOpenApiDocument } from "../openapi/document-schema";

export const openApiDocumentOp = operation({
  id: "openapi.document",
  method: "GET",
  path: "/openapi.json",
  summary: "This API's OpenAPI 3.1 document",
  tags: ["Meta"],
  kind: "query",
  tier: "none",
  permission: null,
  body: { kind: "none" },
  input: z.object({}).optional(),
  output: ZOpenApiDocument,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  // Loaded on first use: the generator is only needed by this route.
  handler: async () => (await import("../openapi")).openApiDocument(),
});
