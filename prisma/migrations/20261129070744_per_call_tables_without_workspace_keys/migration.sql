-- DropForeignKey
ALTER TABLE "BalanceMovement" DROP CONSTRAINT "BalanceMovement_workspaceId_fkey";

-- DropForeignKey
ALTER TABLE "UsageEvent" DROP CONSTRAINT "UsageEvent_workspaceId_fkey";

-- DropForeignKey
ALTER TABLE "ResponseCacheEntry" DROP CONSTRAINT "ResponseCacheEntry_workspaceId_fkey";
