// The local node's environment, parsed once by one schema. Nothing else in local-node/ reads
// process.env.
import { z } from "zod";

const ms = (fallback: number) => z.coerce.number().int().nonnegative().max(600_000).default(fallback);

export const LocalNodeEnvSchema = z.object({
  /** Port to listen on (0: any free port). */
  LOCAL_NODE_PORT: z.coerce.number().int().min(0).max(65535).default(8600),
  LOCAL_NODE_HOST: z.string().min(1).default("127.0.0.1"),
  /** When set, every path except /health requires `Authorization: Bearer <key>`. */
  LOCAL_NODE_API_KEY: z.string().optional().transform((v) => v || undefined),
  /** Pause between two streamed token deltas (ms); 0 streams as fast as possible. */
  LOCAL_NODE_TOKEN_DELAY_MS: ms(0),
  /** Pause before the first byte of every chat and embeddings answer (ms). */
  LOCAL_NODE_LATENCY_MS: ms(0),
  /** Pause before every video render starts (ms): for crash-safety tests of the gateway. */
  LOCAL_NODE_VIDEO_DELAY_MS: ms(0),
  /** Video renders running at once; further jobs wait queued. */
  LOCAL_NODE_VIDEO_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** Where fine-tuning keeps files, jobs, checkpoints and tuned models; a temporary folder when unset. */
  LOCAL_NODE_DATA_DIR: z.string().optional().transform((v) => v || undefined),
  /** Pause between two fine-tuning steps (ms): for tests that stop a job mid-training. */
  LOCAL_NODE_FINE_TUNE_STEP_DELAY_MS: ms(0),
  /** Fine-tuning jobs training at once; further jobs wait queued. */
  LOCAL_NODE_FINE_TUNE_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(2),
});

export type LocalNodeConfig = {
  port: number;
  host: string;
  apiKey?: string;
  tokenDelayMs: number;
  latencyMs: number;
  videoDelayMs: number;
  videoConcurrency: number;
  dataDir?: string;
  fineTuneStepDelayMs: number;
  fineTuneConcurrency: number;
};

export function readConfig(source: NodeJS.ProcessEnv = process.env): LocalNodeConfig {
  const result = LocalNodeEnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid local node environment:\n${lines.join("\n")}`);
  }
  const env = result.data;
  return {
    port: env.LOCAL_NODE_PORT,
    host: env.LOCAL_NODE_HOST,
    apiKey: env.LOCAL_NODE_API_KEY,
    tokenDelayMs: env.LOCAL_NODE_TOKEN_DELAY_MS,
    latencyMs: env.LOCAL_NODE_LATENCY_MS,
    videoDelayMs: env.LOCAL_NODE_VIDEO_DELAY_MS,
    videoConcurrency: env.LOCAL_NODE_VIDEO_CONCURRENCY,
    dataDir: env.LOCAL_NODE_DATA_DIR,
    fineTuneStepDelayMs: env.LOCAL_NODE_FINE_TUNE_STEP_DELAY_MS,
    fineTuneConcurrency: env.LOCAL_NODE_FINE_TUNE_CONCURRENCY,
  };
}
