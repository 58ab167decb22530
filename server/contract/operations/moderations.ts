// The /v1/moderations operations (being built).
export const moderationsOperations = {} as const;
