// The vitest run's gateway (see test-stack.ts); test files reach it through `inject`.
import type { TestProject } from "vitest/node";
import { bundleCli } from "../../scripts/lib/build";
import { bootTestStack, type TestStack } from "./test-stack";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    demoKey: string;
    demoWorkspaceId: string;
    /** Whether the stack started its embedded database (not DATABASE_URL's). */
    embeddedDatabase: boolean;
  }
}

let booted: TestStack | undefined;

export async function setup(project: TestProject): Promise<void> {
  // For a quick run of tests that need no gateway (e.g. the built-in node's own tests).
  if (process.env.GATEWAY_TEST_STACK === "off") return;
  booted = await bootTestStack("npm test");
  const { stack, dataDir } = booted;
  // The admin CLI, bundled like the server: test files start it as a process (tests/cli-process.ts).
  process.env.GATEWAY_TEST_CLI = await bundleCli(process.env.TEST_DIST_DIR ?? ".next-test");
  // Test files run in worker processes that inherit this environment.
  process.env.DATABASE_URL = stack.databaseUrl;
  process.env.DATA_DIR = dataDir;
  process.env.GATEWAY_SECRET = stack.secret;
  project.provide("baseUrl", stack.baseUrl);
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("demoKey", stack.demo!.secret);
  project.provide("demoWorkspaceId", stack.demo!.workspaceId);
  project.provide("embeddedDatabase", stack.databaseDir !== null);
}

export async function teardown(): Promise<void> {
  await booted?.teardown();
}
