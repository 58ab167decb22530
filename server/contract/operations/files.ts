// The /v1/files operations (being built).
export const filesOperations = {} as const;
