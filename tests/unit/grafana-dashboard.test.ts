// The Grafana dashboard and the PromQL of docs/OPERATIONS.md name only metrics the gateway
// registers, and the dashboard is one Grafana can import (panels with ids, data source, queries).
import { readFileSync } from "node:fs";
import { register } from "prom-client";
import { describe, expect, it } from "vitest";
import { metrics } from "../../server/infra/telemetry/metrics";
import { registerCollectors } from "../../server/telemetry-collectors";

type Panel = { id: number; title: string; datasource?: unknown; targets?: { expr: string }[] };
const dashboard = JSON.parse(readFileSync("docs/grafana/gateway-dashboard.json", "utf8")) as { title: string; panels: Panel[] };
const promqlBlocks = [...readFileSync("docs/OPERATIONS.md", "utf8").matchAll(/```(?:promql|yaml)\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** Metric names in PromQL text: gateway_*, process_*, nodejs_* (histogram series by their metric's name). */
function metricNames(text: string): string[] {
  return [...text.matchAll(/\b((?:gateway|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""));
}

metrics();
registerCollectors();
const registered = new Set(register.getMetricsAsArray().map((m) => m.name));

describe("the operations dashboard and docs", () => {
  it("name only registered metrics", () => {
    const used = new Set([...dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricNames(t.expr))), ...promqlBlocks.flatMap(metricNames)]);
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !registered.has(name))).toEqual([]);
  });

  it("is an importable dashboard: unique panel ids, each with a data source and queries", () => {
    expect(dashboard.title).toBe("Model Gateway");
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.datasource, p.title).toBeTruthy();
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
    }
  });
});
