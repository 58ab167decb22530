// Bedrock: how a node authenticates, where the service is, and its model list (cloud.ts). A
// Bedrock API key (the node's key) is sent as a bearer token (wire.ts) and nothing is signed;
// otherwise every request is signed with SigV4, with the node's keys or the AWS credential chain.
import { errors } from "../../kernel/errors";
import type { CloudWireSpec } from "../cloud-spec";
import { wireHeaders } from "../wire";
import { listBedrockModels } from "./models";
import { sigV4Signer } from "./signer";

export const bedrockSpec: CloudWireSpec = {
  auth(settings, apiKey, credentials) {
    if (apiKey) return { headers: wireHeaders("bedrock", apiKey) };
    // A node is only stored with a region or an endpoint; signing needs the region either way.
    return { headers: {}, sign: sigV4Signer(settings.region ?? "us-east-1", credentials) };
  },
  endpoint(settings) {
    if (!settings.region) throw errors.invalidRequest("A bedrock node needs its AWS region (--region), such as us-east-1.", "region");
    return `https://bedrock-runtime.${settings.region}.amazonaws.com`;
  },
  listModels: listBedrockModels,
};
