// Vertex: how a node authenticates (a bearer token per request, token.ts), where the service is
// (a location's endpoint, or the global one), and its models (models.ts).
import { errors } from "../../kernel/errors";
import type { NodeAuth } from "../cloud";
import type { CloudWireSpec } from "../cloud-spec";
import { listVertexModels } from "./models";
import { googleSigner } from "./token";

export const vertexSpec: CloudWireSpec = {
  // A Vertex API key (express mode) goes in x-goog-api-key; without one, an OAuth token per request.
  auth: (_settings, apiKey, credentials): NodeAuth => (apiKey ? { headers: { "x-goog-api-key": apiKey } } : { headers: {}, sign: googleSigner(credentials) }),
  endpoint(settings) {
    if (!settings.project || !settings.location) throw errors.invalidRequest("A vertex node needs its Google Cloud project and location (--project, --location).", "project");
    return settings.location === "global" ? "https://aiplatform.googleapis.com" : `https://${settings.location}-aiplatform.googleapis.com`;
  },
  listModels: listVertexModels,
};
