// The paths the hosts answer come from the contract: the node:http data plane asks the route
// table, and Next.js (which routes by files) has one route file per declared path outside /v1
// and a catch-all under /v1, each handing the request to the same dispatcher.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { operations } from "../../server/contract";
import { isContractPath } from "../../server/contract/routes";
import { isDataPlanePath } from "../../server/transport/node/data-plane";

const root = path.resolve(__dirname, "../..");
const declared = [...new Set(operations.map((op) => op.path))];
const outsideV1 = declared.filter((p) => !p.startsWith("/v1/"));

describe("the paths the hosts answer", () => {
  it("the data plane answers every declared path (with its parameters filled in) and nothing of the dashboard", () => {
    for (const p of declared) expect(isDataPlanePath(p.replace(/\{[^}]+\}/g, "x")), p).toBe(true);
    expect(isDataPlanePath("/v1/not-declared")).toBe(true); // the API's 404, in its error shape
    for (const p of ["/", "/login", "/w/ws_1/keys", "/api/trpc/keys.list", "/docs", "/healthz", "/.well-known/other"]) expect(isDataPlanePath(p), p).toBe(false);
    expect(isContractPath("/v1x")).toBe(false);
  });

  it("Next.js has a route file for each declared path outside /v1, and a catch-all for /v1, each handing the request to the dispatcher", () => {
    const files = [...outsideV1.map((p) => `app${p}/route.ts`), "app/v1/[[...path]]/route.ts"];
    for (const file of files) {
      expect(existsSync(path.join(root, file)), file).toBe(true);
      expect(readFileSync(path.join(root, file), "utf8"), file).toContain("v1Handlers");
    }
  });
});
