// GET /.well-known/jwks.json: declared in the contract like the /v1 operations, answered by the same dispatcher.
import { v1Handlers } from "@/server/transport/next/v1-handler";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Handlers;
