// Bedrock: how a node authenticates, where the service is, and its model list (cloud.ts). A
// Bedrock API key (the node's key) is sent as a bearer token (wire.ts) and nothing is signed;
// otherwise every request is signed with SigV4, with the node's keys or the AWS credential chain.
import { errors } from "../../kernel/errors";
import type { CloudSettings } from "../cloud";
import type { CloudWireSpec } from "../cloud-spec";
import { wireHeaders } from "../wire";
import { listBedrockModels } from "./models";
import { sigV4Signer } from "./signer";

function regionOf(settings: CloudSettings): string {
  if (!settings.region) throw errors.invalidRequest("A bedrock node needs its AWS region (--region), such as us-east-1.", "region");
  return settings.region;
}

export const bedrockSpec: CloudWireSpec = {
  auth(settings, apiKey, credentials) {
    // Signing needs the region, an --endpoint or not; so does the model list's address.
    const region = regionOf(settings);
    if (apiKey) return { headers: wireHeaders("bedrock", apiKey) };
    return { headers: {}, sign: sigV4Signer(region, credentials) };
  },
  endpoint: (settings) => `https://bedrock-runtime.${regionOf(settings)}.amazonaws.com`,
  listModels: listBedrockModels,
};
