// `npm run build`: the production build that `npm start` would make (Next.js into NEXT_DIST_DIR,
// default `.next`, and the gateway's server bundled beside it as `<dist>/gateway/gateway-server.mjs`).
// Nothing is rebuilt when the sources have not changed.
import { ensureBuilt, serverBundle } from "./lib/build";
import { env } from "../server/infra/env";

await ensureBuilt(env.NEXT_DIST_DIR, (line) => console.error(line));
console.error(`Built: ${env.NEXT_DIST_DIR} and ${serverBundle(env.NEXT_DIST_DIR)}`);
