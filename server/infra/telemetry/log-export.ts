// The request log as OpenTelemetry log records, for volumes beyond one PostgreSQL (a collector in
// front of ClickHouse, Loki, ...; docs/OPERATIONS.md). Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or
// ..._LOGS_ENDPOINT) is set; on, each row goes out over OTLP/HTTP in batches. The SDK and the
// exporter are loaded only then.
import type { Logger } from "@opentelemetry/api-logs";
import type { LoggerProvider } from "@opentelemetry/sdk-logs";
import { env } from "../env";

type Attributes = Record<string, string | number | boolean>;

const state = globalThis as unknown as { gatewayLogExport?: { provider: LoggerProvider; logger: Logger } };

/** Starts exporting log records when the environment asks for it. Idempotent. */
export async function startLogExport(): Promise<void> {
  if (state.gatewayLogExport || !(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)) return;
  const [sdk, { resourceFromAttributes }, { OTLPLogExporter }] = await Promise.all([
    import("@opentelemetry/sdk-logs"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/exporter-logs-otlp-http"),
  ]);
  // The exporter reads the OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, timeout).
  const provider = new sdk.LoggerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME }),
    processors: [new sdk.BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })],
  });
  state.gatewayLogExport = { provider, logger: provider.getLogger("model-gateway.request-log") };
}

export function logExportOn(): boolean {
  return state.gatewayLogExport !== undefined;
}

/** One record (a no-op while export is off). */
export function exportLogRecord(body: string, attributes: Attributes, time: Date): void {
  state.gatewayLogExport?.logger.emit({ body, attributes, timestamp: time, severityText: "INFO", severityNumber: 9 });
}

/** Exports what is left and stops. */
export async function stopLogExport(): Promise<void> {
  const e = state.gatewayLogExport;
  state.gatewayLogExport = undefined;
  await e?.provider.shutdown();
}
