import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/setup/global.ts"],
    setupFiles: ["tests/setup/worker.ts", "tests/setup/contract-check.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // API tests share one gateway; files run in parallel on the 2 cores.
    pool: "forks",
    maxWorkers: 2,
    // The local S3 server used in tests (s3rver) encrypts list continuation tokens with DES,
    // which OpenSSL 3 only offers through its legacy provider.
    execArgv: ["--openssl-legacy-provider"],
    reporters: ["default"],
  },
  resolve: { alias: { "@": new URL("./", import.meta.url).pathname } },
});
