// The contract's own description: the OpenAPI 3.1 document, built from the declarations
// (openapi/index.ts) and served like any operation, without a credential. The contract's list
// (contract/index.ts) gives it the function that builds the document from every operation.
import { z } from "zod";
import { operation } from "../operation";
import { ZOpenApiDocument } from "../openapi/document-schema";

/** The operation serving the document that `document` builds (loaded on first use: only this route needs the generator). */
export const documentOperation = (document: () => Promise<unknown>) =>
  operation({
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
    handler: () => document(),
  });
