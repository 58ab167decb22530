/** Counters of the key cache, for tests and diagnostics: how often the database was asked. */
export const keyCacheStats = { databaseLoads: 0 };
