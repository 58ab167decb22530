// The browser tests' gateway: a fresh database (an install without operator, as `npm start` makes
// it), the built-in node, the production build. Tests find it through E2E_BASE_URL.
import { bootTestStack } from "../setup/test-stack";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const { stack, dataDir, teardown } = await bootTestStack("browser tests");
  process.env.E2E_BASE_URL = stack.baseUrl;
  process.env.DATABASE_URL = stack.databaseUrl;
  process.env.DATA_DIR = dataDir;
  process.env.GATEWAY_SECRET = stack.secret;
  return teardown;
}
