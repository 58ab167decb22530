// Vertex: how a node authenticates (a bearer token per request, token.ts), where the service is
// (a location's endpoint, or the global one), and its models (models.ts).
import { errors } from "../../kernel/errors";
import type { CloudSettings, NodeAuth } from "../cloud";
import type { CloudWireSpec } from "../cloud-spec";
import { listVertexModels } from "./models";
import { googleSigner } from "./token";

/** The project and location every Vertex path names (an --endpoint or not). */
function placeOf(settings: CloudSettings): { project: string; location: string } {
  if (!settings.project || !settings.location) throw errors.invalidRequest("A vertex node needs its Google Cloud project and location (--project, --location).", "project");
  return { project: settings.project, location: settings.location };
}

export const vertexSpec: CloudWireSpec = {
  // A Vertex API key (express mode) goes in x-goog-api-key; without one, an OAuth token per request.
  auth(settings, apiKey, credentials): NodeAuth {
    placeOf(settings);
    return apiKey ? { headers: { "x-goog-api-key": apiKey } } : { headers: {}, sign: googleSigner(credentials) };
  },
  endpoint(settings) {
    const { location } = placeOf(settings);
    return location === "global" ? "https://aiplatform.googleapis.com" : `https://${location}-aiplatform.googleapis.com`;
  },
  listModels: listVertexModels,
};
