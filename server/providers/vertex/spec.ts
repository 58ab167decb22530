// Vertex: how a node authenticates, where the service is, and its model list (cloud.ts).
import type { CloudWireSpec } from "../cloud-spec";
import { UpstreamFailure } from "../upstream-failure";

const unbuilt = () => {
  throw new UpstreamFailure("protocol", "this wire format is being built", 501);
};

export const vertexSpec: CloudWireSpec = { auth: () => ({ headers: {} }), endpoint: unbuilt, listModels: unbuilt };
