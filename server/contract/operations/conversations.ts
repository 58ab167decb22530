// The /v1/conversations operations (being built).
export const conversationsOperations = {} as const;
