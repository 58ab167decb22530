/**
 * The layers of `server/`, checked by `npm run check:layers` (and so by `npm test`).
 *
 * Imports point downwards only:
 *
 *   app/
 *   server/transport/      the two hosts: the node:http data plane and the Next.js glue
 *   server/trpc/
 *   server/pipeline/       the stages of a /v1 call
 *   server/contract/       one declaration per /v1 operation    server/onboarding/ (beside contract
 *   server/inference/      chat, responses, embeddings,           and inference: opening a workspace
 *                          audio, images, videos                  composes identity and the ledger)
 *   server/admission/      limits, budgets, holds, x402 payments
 *   server/identity/  server/routing/  server/ledger/   (siblings)
 *   server/providers/
 *   server/infra/
 *   server/kernel/
 *
 * The files at the root of `server/` (`background.ts`, `telemetry-collectors.ts`) are composition
 * roots of a process: they may import any domain, and only the hosts load them.
 *
 * A layer may import any layer below it, not only the next one. Each rule below forbids one kind of
 * upward (or sideways) import; they are written so that one import breaks one rule. Type-only
 * imports count (`tsPreCompilationDeps`), and so do dynamic `import()`s.
 */

/** One regex per layer, matched against paths relative to the repository's root. */
const layer = {
  app: "^app/",
  transport: "^server/transport/",
  trpc: "^server/trpc/",
  pipeline: "^server/pipeline/",
  contract: "^server/contract/",
  onboarding: "^server/onboarding/",
  inference: "^server/inference/",
  admission: "^server/admission/",
  identity: "^server/identity/",
  routing: "^server/routing/",
  ledger: "^server/ledger/",
  /** Webhooks and the alerts delivered to them. */
  alerts: "^server/alerts/",
  audit: "^server/audit/",
  providers: "^server/providers/",
  infra: "^server/infra/",
  kernel: "^server/kernel/",
  /** Every /v1 call as a log row, and the call's tags. */
  requestLog: "^server/request-log/",
  /** Answers kept and replayed for calls that ask again. */
  responseCache: "^server/response-cache/",
  /** Uploaded files (/v1/files) in the blob store. */
  files: "^server/files/",
  /** Batches (/v1/batches): their lines run through the pipeline the composition root hands them. */
  batches: "^server/batches/",
  /** Checks on calls' input and output (block, redact, flag), run by the pipeline. */
  guardrails: "^server/guardrails/",
  /** The MCP gateway: registered servers, /mcp's sessions and tools, tool calls. */
  mcp: "^server/mcp/",
  /** The composition roots: files directly in `server/`. */
  roots: "^server/[^/]+$",
};

/** The domains: what a call is about, below the layers that receive and run it. */
const domains = [
  layer.mcp,
  layer.guardrails,
  layer.files,
  layer.batches,
  layer.requestLog,
  layer.responseCache,
  layer.identity,
  layer.admission,
  layer.inference,
  layer.routing,
  layer.ledger,
  layer.providers,
  layer.onboarding,
  layer.alerts,
  layer.audit,
];

/** The layers a /v1 call passes through before it reaches a domain. */
const callLayers = [layer.transport, layer.trpc, layer.pipeline, layer.contract];

/** Development tooling, never part of the running server. */
const tooling = "^(scripts|tests|bench|local-node)/";

const forbid = (name, comment, from, to) => ({ name, comment, severity: "error", from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // ---- The rules the layering is built on ------------------------------------------------------

    forbid(
      "no-circular",
      "A cycle between files of server/ makes their load order matter and hides which one is the lower layer; break it by moving the shared part down.",
      { path: "^server/" },
      { circular: true },
    ),
    forbid(
      "kernel-imports-only-kernel",
      "The kernel (errors, money, ids, result types) is what every layer stands on, so it imports nothing else of the server.",
      { path: layer.kernel },
      { path: "^server/", pathNot: layer.kernel },
    ),
    forbid(
      "infra-imports-only-infra-and-kernel",
      "Infrastructure (database, jobs, storage, mail, net, telemetry) serves every domain and so knows none of them: it imports only infra and the kernel.",
      { path: layer.infra },
      { path: "^server/", pathNot: [layer.infra, layer.kernel] },
    ),
    forbid(
      "domains-do-not-import-call-layers",
      "A domain is called by the contract, the pipeline, tRPC and the hosts, and is told what it needs through arguments; importing them back would tie the domain to one way of being called.",
      { path: domains },
      { path: callLayers },
    ),
    forbid(
      "identity-does-not-import-ledger-or-admission",
      "Identity says who calls and what their plan allows; charging and admitting a call sit on top of it (admission) or beside it (the ledger is told who pays).",
      { path: layer.identity },
      { path: [layer.ledger, layer.admission] },
    ),
    forbid(
      "ledger-imports-no-other-domain",
      "The ledger moves money for whoever it is told pays; it knows no identity, admission, modality or routing, so that every balance change goes through one statement independent of them.",
      { path: layer.ledger },
      { path: [layer.identity, layer.admission, layer.inference, layer.routing] },
    ),
    forbid(
      "providers-import-no-domain",
      "A provider adapter speaks one upstream wire format and is handed the node and the request; it decides no routing and knows no modality, money or caller.",
      { path: layer.providers },
      { path: [layer.inference, layer.routing, layer.ledger, layer.identity, layer.admission] },
    ),

    // ---- Imports point downwards: the remaining upward imports ---------------------------------

    forbid(
      "server-does-not-import-app",
      "app/ is the top of the stack (Next.js pages and route handlers) and nothing of server/ may depend on it.",
      { path: "^server/" },
      { path: layer.app },
    ),
    forbid(
      "trpc-does-not-import-transport",
      "tRPC is hosted by the transports, so it cannot depend on either host.",
      { path: layer.trpc },
      { path: layer.transport },
    ),
    forbid(
      "pipeline-does-not-import-trpc-or-transport",
      "The pipeline states a /v1 call's stages for every host; tRPC and the transports run it, not the other way round.",
      { path: layer.pipeline },
      { path: [layer.trpc, layer.transport] },
    ),
    forbid(
      "contract-does-not-import-pipeline-trpc-or-transport",
      "The contract declares the /v1 operations; the pipeline, tRPC and the hosts are generated from it and run it, so it imports none of them.",
      { path: layer.contract },
      { path: [layer.pipeline, layer.trpc, layer.transport] },
    ),
    forbid(
      "onboarding-imports-only-identity-and-ledger",
      "Opening a workspace composes identity and the ledger (with infra and the kernel); it does not reach into modalities, admission, routing or providers.",
      { path: layer.onboarding },
      { path: [layer.inference, layer.admission, layer.routing, layer.providers, layer.roots] },
    ),
    forbid(
      "onboarding-is-called-only-from-trpc-and-transport",
      "Onboarding sits above the domains it composes, so only tRPC, the hosts and app/ call it (infra and the kernel have their own rules).",
      { path: "^server/", pathNot: [layer.trpc, layer.transport, layer.onboarding, layer.infra, layer.kernel] },
      { path: layer.onboarding },
    ),
    forbid(
      "admission-does-not-import-inference",
      "Admission admits a call before the modality runs it (limits, budgets, holds, payments) and knows no modality.",
      { path: layer.admission },
      { path: layer.inference },
    ),
    forbid(
      "identity-does-not-import-inference",
      "Identity lies below the modalities that use it.",
      { path: layer.identity },
      { path: layer.inference },
    ),
    forbid(
      "routing-does-not-import-inference-or-admission",
      "Routing (catalog, prices, nodes) lies below the modalities and admission, which ask it for a model, a price and a node.",
      { path: layer.routing },
      { path: [layer.inference, layer.admission] },
    ),
    forbid(
      "only-the-call-layers-run-guardrails",
      "Guardrails wrap a call from outside (the pipeline's input and output stages, tRPC and the CLI manage them); the domains a call reaches are checked by them and never call them back.",
      { path: "^server/", pathNot: [layer.guardrails, layer.pipeline, layer.trpc, layer.transport, layer.contract] },
      { path: layer.guardrails },
    ),
    forbid(
      "sso-and-scim-only-in-the-next-host",
      "Single sign-on and SCIM are served by the Next.js side only (the dashboard's sign-in, /scim/v2): the data plane and the /v1 path never load them, so only tRPC's routers and the Next.js host import them.",
      { path: "^server/", pathNot: ["^server/identity/(sso|scim)/", "^server/transport/next/", "^server/trpc/routers/"] },
      { path: "^server/identity/(sso|scim)/" },
    ),
    forbid(
      "protocol-libraries-only-in-sso-and-scim",
      "The OIDC, SAML and SCIM libraries are loaded by the single sign-on and SCIM code alone.",
      { path: "^server/", pathNot: "^server/identity/(sso|scim)/" },
      { path: "node_modules/(openid-client|@node-saml|@boxyhq/saml20|scim-patch|scim2-parse-filter)" },
    ),
    forbid(
      "composition-roots-are-loaded-only-by-the-hosts",
      "The files at server/'s root compose a whole process (background work, collectors); a domain importing one would pull the whole process in, so only the hosts load them (infra and the kernel have their own rules).",
      { path: "^server/", pathNot: [layer.transport, layer.roots, layer.onboarding, layer.infra, layer.kernel] },
      { path: layer.roots },
    ),
    forbid(
      "composition-roots-do-not-import-the-hosts",
      "The hosts load the composition roots, so the roots lie below transport and tRPC.",
      { path: layer.roots },
      { path: [layer.transport, layer.trpc] },
    ),
    forbid(
      "no-tooling-in-the-server",
      "Scripts, tests, benchmarks and the built-in node are not part of the running server (the node is reached only over HTTP).",
      { path: "^(server|app)/" },
      { path: tooling },
    ),
  ],

  options: {
    // Prisma's generated client is a large leaf of infra: left out of the graph, neither cruised nor reported.
    exclude: { path: ["^server/generated/"] },
    // Packages are leaves: named where they are imported, never read.
    doNotFollow: { path: ["node_modules"] },
    // Resolve `@/…` and the rest the way TypeScript does.
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports are dependencies too: a type pulled from a higher layer ties the layers as much as a value.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    // Only what the rules look at is computed.
    skipAnalysisNotInRules: true,
  },
};
