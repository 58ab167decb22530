// The soak's instances: one process each, no renders or batches of their own (the workers do
// them). Imported after bench-env.ts, before any server module reads the env.
process.env.WEB_CONCURRENCY = "1";
process.env.VIDEO_WORKERS = "0";
process.env.BATCH_WORKERS = "0";
