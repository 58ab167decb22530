export * from "../kernel/spend-counters"; // (moved; imports are switched over)
