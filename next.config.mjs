/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // npm start and the tests build into different folders, so testing never disturbs a running gateway.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  // Server-only packages loaded from node_modules at run time instead of being bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "@ffprobe-installer/ffprobe", "sharp", "pg-boss", "@aws-sdk/client-s3", "@aws-sdk/lib-storage", "pino", "pino-pretty", "prom-client", "@opentelemetry/api", "@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/resources", "openid-client", "@node-saml/node-saml", "@boxyhq/saml20", "scim-patch", "scim2-parse-filter"],
  // Types are checked once per test run by `npm run typecheck` (tsc), not again inside every build.
  typescript: { tsconfigPath: "tsconfig.json", ignoreBuildErrors: true },
};

export default nextConfig;
