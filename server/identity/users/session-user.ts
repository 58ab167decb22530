/** A signed-in dashboard user as the procedures see it; `isOperator` is read fresh on every request. */
export type SessionUser = { id: string; email: string; name: string | null; isOperator: boolean };
