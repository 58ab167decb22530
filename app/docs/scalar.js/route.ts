// GET /docs/scalar.js: the API reference page's script (the Scalar standalone bundle), served by
// the gateway itself. The page asks for it with the bundle's version, so it may be cached long.
import { scalarBundle } from "../scalar-bundle";

export function GET(): Response {
  const { code } = scalarBundle();
  return new Response(new Uint8Array(code), {
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=604800, immutable" },
  });
}
