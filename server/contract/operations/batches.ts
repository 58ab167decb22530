// The /v1/batches operations (being built).
export const batchesOperations = {} as const;
