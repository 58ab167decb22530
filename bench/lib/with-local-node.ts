// For a bench that calls the built-in node beside the mock upstream: imported right after
// bench-env.ts (which turns the built-in node off), before any server module reads the env.
process.env.LOCAL_NODE_ENABLED = "true";
