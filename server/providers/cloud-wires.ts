// Each cloud format's spec (cloud.ts), beside its adapter (adapters.ts).
import { azureSpec } from "./azure/spec";
import { bedrockSpec } from "./bedrock/spec";
import { vertexSpec } from "./vertex/spec";
import type { CloudWireName } from "./cloud";
import type { CloudWireSpec } from "./cloud-spec";

export const CLOUD_SPECS: Record<CloudWireName, CloudWireSpec> = { azure: azureSpec, bedrock: bedrockSpec, vertex: vertexSpec };
