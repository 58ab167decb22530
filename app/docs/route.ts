// GET /docs: a readable API reference, Scalar rendering the gateway's own OpenAPI document
// (/openapi.json). Everything it loads comes from this gateway: no CDN, no web fonts, no telemetry.
// (Not `id="api-reference"`: the bundle would mount a second reference there, with its defaults.)
import { scalarBundle } from "./scalar-bundle";

const CONFIG = {
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  hideClientButton: false,
  defaultOpenFirstTag: true,
};

export function GET(): Response {
  const { version } = scalarBundle();
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference · Model gateway</title>
    <link rel="icon" href="/icon.svg" type="image/svg+xml" />
  </head>
  <body>
    <div id="reference"></div>
    <script src="/docs/scalar.js?v=${encodeURIComponent(version)}"></script>
    <script>Scalar.createApiReference("#reference", ${JSON.stringify(CONFIG)});</script>
  </body>
</html>
`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
}
