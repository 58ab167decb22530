// What GET /v1/network/status answers (part 2.10 of the API reference), as network-status.ts
// builds it.
import { z } from "zod";

export const ZNetworkStatus = z.strictObject({
  nodesOnline: z.number().int(),
  regions: z.array(
    z.strictObject({
      city: z.string(),
      country: z.string(),
      nodes: z.number().int(),
      updatedAt: z.string().describe("ISO 8601 time of the region's latest health check"),
    }),
  ),
  modelsAvailable: z.number().int(),
  capabilities: z.record(z.string(), z.number().int()).describe("Ready models per type (chat, embedding, ...) and per capability (tools, json_mode, ...)"),
  legal: z.strictObject({ geoip: z.string().describe("`disabled`: callers are not geolocated and no region is restricted") }),
});
