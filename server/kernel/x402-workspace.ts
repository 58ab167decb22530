/**
 * The workspace x402 calls are recorded in (created by the x402 migration). It has no members and
 * no credit: each settlement is credited to it and charged by its call in the same statement, so
 * its balance stays at zero. It is not one of the workspaces people make, so lists leave it out.
 */
export const X402_WORKSPACE_ID = "ws_x402";
