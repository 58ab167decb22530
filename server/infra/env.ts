// The environment, parsed once by one schema. Nothing else reads process.env for configuration.
import { z } from "zod";
import { parseAllowList } from "./net/address-policy";

const int = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  /** PostgreSQL to use. Unset: `npm start` runs an embedded PostgreSQL under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  /** Where the embedded database, blobs and runtime files live. */
  DATA_DIR: z.string().default(".data"),
  PORT: int(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Gateway server processes sharing PORT, each serving /v1 and the dashboard. Unset or 0: one per core. */
  WEB_CONCURRENCY: int(0),
  /** Set by the gateway server for each of its processes; the instance's background work runs in process 0. */
  GATEWAY_PROCESS_INDEX: int(0),
  /** Port of the built-in local node (0: pick a free one). */
  LOCAL_NODE_PORT: int(0),
  LOCAL_NODE_CITY: z.string().default("Frankfurt"),
  LOCAL_NODE_COUNTRY: z.string().default("DE"),
  /** Set to "false" to start without the built-in local node. */
  LOCAL_NODE_ENABLED: z.enum(["true", "false"]).default("true"),
  /** Key for encrypting upstream node keys at rest: 32 bytes, base64 or hex. Generated into DATA_DIR when unset. */
  GATEWAY_SECRET: z.string().optional(),
  /** Largest JSON request body accepted, in bytes. */
  MAX_JSON_BODY_BYTES: int(4 * 1024 * 1024),
  /** Largest audio file accepted by /v1/audio/transcriptions and /translations, in bytes (OpenAI's 25 MB). */
  MAX_AUDIO_UPLOAD_BYTES: int(25 * 1024 * 1024),
  /** Largest image (and mask) accepted by /v1/images/edits and /variations, in bytes. */
  MAX_IMAGE_UPLOAD_BYTES: int(16 * 1024 * 1024),
  /** Origin that image links (`response_format: "url"`) point at, e.g. https://api.example.com. Unset: the request's host. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** Lifetime of the signed URLs returned for `response_format: "url"` images, in seconds. */
  IMAGE_URL_TTL_SECONDS: int(3600),
  /** The `iss` and `aud` claims of the session tokens the gateway mints (POST /v1/sessions). */
  SESSION_TOKEN_ISSUER: z.string().min(1).default("model-gateway"),
  SESSION_TOKEN_AUDIENCE: z.string().min(1).default("model-gateway/v1"),
  /** A verified API key is re-checked against the database after this long (ms). */
  KEY_CACHE_REFRESH_MS: int(2000),
  /** A cached API key is never used past this age (ms), even when the refresh failed. */
  KEY_CACHE_MAX_AGE_MS: int(4000),
  /** How often nodes are health-checked (ms), and the timeout of one check. */
  HEALTH_CHECK_INTERVAL_MS: int(10_000),
  HEALTH_CHECK_TIMEOUT_MS: int(3000),
  /** Upstream timeouts (ms): TCP connect, response headers (first byte), silence between body chunks. */
  UPSTREAM_CONNECT_TIMEOUT_MS: int(5000),
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: int(60_000),
  UPSTREAM_IDLE_TIMEOUT_MS: int(60_000),
  /** After a streaming client disconnects, the node's stream is still read (and billed) for at most this long. */
  STREAM_DRAIN_TIMEOUT_MS: int(120_000),
  /** Circuit breaker: consecutive failures that take a node out of rotation, and for how long at least. */
  BREAKER_FAILURES: int(3),
  BREAKER_COOLDOWN_MS: int(30_000),
  /** Credits (USD) of the demo workspace created on the first start. */
  DEMO_CREDITS: z.string().regex(/^\d+(\.\d+)?$/).default("25"),
  /** Where blobs (images, videos) are kept: `fs` (DATA_DIR/blobs) or `s3` (any S3-compatible storage). */
  BLOB_STORE: z.enum(["fs", "s3"]).default("fs"),
  S3_BUCKET: z.string().optional(),
  /** Endpoint of an S3-compatible service (MinIO, R2, ...); unset: AWS S3 in S3_REGION. */
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** "true" for services that need path-style URLs (most S3-compatible servers). */
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("true"),
  /** Prefix put before every key in the bucket, e.g. `gateway/`. */
  S3_PREFIX: z.string().default(""),
  /** Video render workers run inside each gateway process (how many jobs at once; 0: none, use `npm run worker`). */
  VIDEO_WORKERS: int(2),
  /** A job not finished this long after it was created ends `failed` with code `timeout`, uncharged (seconds). */
  VIDEO_JOB_TIMEOUT_SECONDS: int(3600),
  /** How long a finished job and its video are kept (seconds); then the video is deleted and the job answers 404. */
  VIDEO_RETENTION_SECONDS: int(24 * 3600),
  /** How often a worker asks the node how a render is going (ms). */
  VIDEO_POLL_INTERVAL_MS: int(1000),
  /** A worker that has not reported for this long is presumed dead and its job is retried (seconds, >= 10). */
  VIDEO_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).default(10),
  /** Fine-tuning workers inside each gateway's first process and each `npm run worker` (jobs driven at once; 0: none). */
  FINE_TUNE_WORKERS: int(4),
  /** How often a fine-tuning worker reads its job's progress, events and checkpoints from the node (ms). */
  FINE_TUNE_POLL_INTERVAL_MS: int(500),
  /** How long a node training a job may stay unreachable (restarting) before the job fails (seconds). */
  FINE_TUNE_NODE_DOWN_SECONDS: int(120),
  /** Batch workers inside each gateway's first process (batches run at once; 0: none, use `npm run worker`). */
  BATCH_WORKERS: int(1),
  /** Where a gateway instance runs its batches: "false", its first process; "true", a process of their own at BATCH_NICE, started while there are batches (a copy of the server, ~125 MB). */
  BATCH_PROCESS: z.enum(["true", "false"]).default("false"),
  /** A gateway instance's batch process ends after running no batch for this long, and none waits (seconds); it starts again with the next batch. */
  BATCH_PROCESS_IDLE_SECONDS: int(60),
  /** The CPU priority (nice, 0 to 19) of a gateway instance's batch process: higher gives way more to live calls. */
  BATCH_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** While live calls are answered on the instance, its batch process starts at most this many lines a second (server/batches/live-pace.ts; 0: never gives way). */
  BATCH_LIVE_LINES_PER_SECOND: z.coerce.number().int().min(0).max(100_000).default(50),
  /** Lines of one batch in flight at once, per worker. */
  BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** A batch worker that has not reported for this long is presumed dead and its batch resumed elsewhere (seconds, >= 10). */
  BATCH_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).default(10),
  /** The share of a key's rate limits batch lines may use; the rest is kept for its live calls (0 to 1). */
  BATCH_RATE_SHARE: z.coerce.number().min(0.05).max(1).default(0.5),
  /** How often job timeouts and dead workers are looked for (seconds). */
  JOB_MONITOR_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(5),
  /** How often idle workers look for jobs besides being woken by NOTIFY (seconds). */
  JOB_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).default(5),
  /** Largest video accepted from a node (bytes). */
  MAX_VIDEO_BYTES: int(1024 * 1024 * 1024),
  /** /v1/files (docs/FILES.md): largest file of any purpose, and of purpose `batch` (bytes; OpenAI's 512 MB and 200 MB). */
  FILES_MAX_BYTES: int(512 * 1024 * 1024),
  FILES_MAX_BATCH_BYTES: int(200 * 1024 * 1024),
  /** Bytes of live files a workspace may store in all (0: no quota). */
  FILES_WORKSPACE_QUOTA_BYTES: int(10 * 1024 * 1024 * 1024),
  /** A `batch` file uploaded without `expires_after` expires this long after upload (seconds; OpenAI's 30 days; 0: never). */
  FILES_BATCH_EXPIRES_SECONDS: int(30 * 24 * 3600),
  /** Dashboard sign-in. Secret for session tokens; unset: derived from GATEWAY_SECRET. */
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  /** Public origin of the dashboard (e.g. https://gateway.example.com), for sign-in callbacks and invite links. */
  NEXTAUTH_URL: z.string().url().optional(),
  /** GitHub sign-in: on when both are set. */
  GITHUB_ID: z.string().optional(),
  GITHUB_SECRET: z.string().optional(),
  /** Comma-separated emails of gateway operators (see identity/users/operators.ts for the other ways to make one). */
  OPERATOR_EMAILS: z.string().default(""),
  /** USD credited to the first workspace each new user creates (once per user); "0": none. */
  SIGNUP_CREDITS: z.string().regex(/^\d+(\.\d+)?$/, "a decimal amount of USD such as 5 or 2.50").default("0"),
  /** Sign-in throttling: failures per email, and per client address, within the window; then refused until the window ends. */
  SIGN_IN_MAX_FAILURES: int(5),
  SIGN_IN_MAX_FAILURES_PER_IP: int(50),
  SIGN_IN_WINDOW_SECONDS: int(900),
  /** "true" behind one trusted reverse proxy: the client address (for throttling) is the last X-Forwarded-For entry. */
  TRUST_PROXY: z.enum(["true", "false"]).default("false"),
  /**
   * Origins whose browser pages may call /v1 (CORS): "*" (the default: /v1 takes bearer tokens,
   * not cookies, so any page with a key may call it) or a comma-separated list of origins.
   */
  CORS_ORIGINS: z.string().default("*"),
  /** On SIGTERM, in-flight requests and streams get this long to finish before they are cut (ms). */
  SHUTDOWN_DRAIN_MS: int(30_000),
  /**
   * Where each process writes the usage of its calls down before their answers end (the usage
   * spool, docs/BILLING.md): default DATA_DIR/usage-spool. `off`: answers wait for their usage
   * to be committed in PostgreSQL instead.
   */
  USAGE_SPOOL_DIR: z.string().default(""),
  /** With the spool on, how long usage is gathered before it is committed in one batch, in ms. */
  USAGE_COMMIT_DELAY_MS: int(20),
  /**
   * The CPU priority (nice, 0–19) of the embedded database's backends that write behind the
   * answers (infra/db/write-pool.ts); 0 leaves them as they are. Read by the process that starts
   * the database, which gives its serving processes BEHIND_WRITES_NICE.
   */
  EMBEDDED_POSTGRES_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Set by that process: the nice its serving processes give those backends (0, the default, with DATABASE_URL: the database's processes are not the gateway's). */
  BEHIND_WRITES_NICE: z.coerce.number().int().min(0).max(19).default(0),
  /**
   * Time allowed to receive a request's headers, and its whole body (ms); node:http's own limits.
   * Real clients send their headers in one write: 10 s cuts a client that trickles them (slowloris).
   */
  HEADERS_TIMEOUT_MS: int(10_000),
  REQUEST_TIMEOUT_MS: int(300_000),
  /** Open client connections one gateway process accepts at most (0: no cap). */
  MAX_CONNECTIONS: int(10_000),
  /**
   * Open connections one client address may hold on an instance (0: no cap), counted over all its
   * processes; behind a trusted proxy (TRUST_PROXY), the requests in flight per forwarded address,
   * in each process. One more: 429 too_many_connections.
   */
  MAX_CONNECTIONS_PER_IP: int(256),
  /**
   * Outbound fetches to addresses a tenant or caller chooses (a trusted issuer's JWKS, webhooks)
   * go through the outbound guard (infra/net/outbound-guard.ts): https only, and never to
   * loopback, private, link-local, unspecified or multicast addresses, except the hosts and CIDRs
   * listed here (comma separated, e.g. `idp.internal,10.0.0.0/8`), which plain http may reach too.
   */
  OUTBOUND_ALLOW: z
    .string()
    .default("")
    .superRefine((value, ctx) => {
      try {
        parseAllowList(value);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),
  /** "true": plain http is allowed to any public address too (not only to OUTBOUND_ALLOW). */
  OUTBOUND_ALLOW_HTTP: z.enum(["true", "false"]).default("false"),
  /** An outbound fetch's whole time (ms) and the largest answer it reads (bytes). */
  OUTBOUND_TIMEOUT_MS: int(10_000),
  OUTBOUND_MAX_BYTES: int(1024 * 1024),
  /** The longest an MCP tool call may take at its server (ms), and an /mcp session's life since its last use (s). */
  MCP_TOOL_TIMEOUT_MS: int(60_000),
  MCP_SESSION_IDLE_SECONDS: int(24 * 3600),
  /** Invitation emails: sent only when SMTP_URL (smtp://user:pass@host:port) is set. */
  SMTP_URL: z.string().url().optional(),
  SMTP_FROM: z.string().default("Model Gateway <no-reply@localhost>"),
  /** Folder of the Next.js build used by `npm start`. */
  NEXT_DIST_DIR: z.string().default(".next"),
  /**
   * x402 payments (docs/X402.md): off unless set. `local` runs a dev chain beside the gateway
   * (npm start); otherwise a CAIP-2 network id such as `eip155:84532`, with the settings below.
   */
  X402_NETWORK: z.union([z.literal("local"), z.string().regex(/^eip155:\d+$/, "a CAIP-2 EVM network id such as eip155:84532, or local")]).optional(),
  /** The JSON-RPC endpoint of that network (the built-in facilitator reads and settles through it). */
  X402_RPC_URL: z.string().url().optional(),
  /** The token payments are made in (an EIP-3009 and EIP-2612 token such as USDC), its EIP-712 name and version, and its decimals. */
  X402_ASSET: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
  X402_ASSET_NAME: z.string().min(1).default("USD Coin"),
  X402_ASSET_VERSION: z.string().min(1).default("2"),
  X402_ASSET_DECIMALS: z.coerce.number().int().min(0).max(36).default(6),
  /** The operator's wallet that receives payments. */
  X402_PAY_TO: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
  /** A remote facilitator (its /verify, /settle and /supported), or the key of the built-in one's wallet (it pays the gas). */
  X402_FACILITATOR_URL: z.string().url().optional(),
  X402_FACILITATOR_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/).optional(),
  /** How long a signed payment stays valid for a call, in seconds (a video job's: VIDEO_JOB_TIMEOUT_SECONDS + 600). */
  X402_MAX_TIMEOUT_SECONDS: int(300),
  /**
   * Prometheus metrics (docs/OPERATIONS.md): `GET /metrics` on PORT answers a request bearing
   * METRICS_TOKEN; METRICS_PORT (0: none) serves them without a token on METRICS_HOST, a port to
   * keep off the public network. Neither set: no metrics endpoint.
   */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  METRICS_PORT: int(0),
  METRICS_HOST: z.string().default("127.0.0.1"),
  /** Logs: pino's levels (`silent` for none); `pretty` for people, `json` for machines (default: pretty on a terminal). */
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /** A log line per /v1 request: "true", "false" (failures are still logged), or "auto": only while REQUEST_LOG is off. */
  LOG_REQUESTS: z.enum(["true", "false", "auto"]).default("auto"),
  /** The request log (server/request-log/): every /v1 call as a row, written in batches; off: none. */
  REQUEST_LOG: z.enum(["on", "off"]).default("on"),
  /** Bytes of answers the response cache keeps in each process's memory, in front of PostgreSQL. */
  CACHE_MEMORY_BYTES: int(64 * 1024 * 1024),
  /** The largest answer the response cache stores (bytes of its JSON); a larger one is answered, not stored. */
  CACHE_MAX_ENTRY_BYTES: int(1024 * 1024),
  /** Days a request log row is kept (whole days are dropped). */
  LOG_RETENTION_DAYS: int(30),
  /** How long request log rows wait to be written together. */
  LOG_FLUSH_MS: int(250),
  /** JSON lines are written in blocks of this many bytes (or every 0.5 s); 0: one write per line. */
  /** Where log lines go: standard output, or standard error (the CLI's, so that its --json output is nothing but JSON). */
  LOG_DESTINATION: z.enum(["stdout", "stderr"]).default("stdout"),
  LOG_BUFFER_BYTES: int(4096),
  /** Traces over OTLP/HTTP (docs/OPERATIONS.md): on when set, e.g. http://localhost:4318; the standard OTEL_* variables apply. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** The request log as OTLP log records (docs/OPERATIONS.md); on with OTEL_EXPORTER_OTLP_ENDPOINT too. */
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: z.string().url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default("model-gateway"),
});

export type Env = z.infer<typeof EnvSchema>;

function parseEnv(source: NodeJS.ProcessEnv): Env {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  if (result.data.BLOB_STORE === "s3" && !result.data.S3_BUCKET) throw new Error("Invalid environment:\n  S3_BUCKET: required when BLOB_STORE=s3");
  return result.data;
}

export const env: Env = parseEnv(process.env);
