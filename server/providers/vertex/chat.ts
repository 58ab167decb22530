// Vertex's adapter.
import type { ChatAdapter } from "../adapter";
import { UpstreamFailure } from "../upstream-failure";

const unbuilt = () => {
  throw new UpstreamFailure("protocol", "this wire format is being built", 501);
};

export const vertexAdapter: ChatAdapter = { complete: unbuilt, openStream: unbuilt, moderate: unbuilt };
