-- CreateEnum
CREATE TYPE "MovementKind" AS ENUM ('usage', 'credit', 'adjustment', 'video_reserve', 'video_settle', 'video_release');

-- CreateTable
CREATE TABLE "BalanceMovement" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "kind" "MovementKind" NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BalanceMovement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CreditLease" (
    "workspaceId" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "version" BIGSERIAL NOT NULL,

    CONSTRAINT "CreditLease_pkey" PRIMARY KEY ("workspaceId","instanceId")
);

-- CreateIndex
CREATE INDEX "BalanceMovement_workspaceId_createdAt_idx" ON "BalanceMovement"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "BalanceMovement_apiKeyId_idx" ON "BalanceMovement"("apiKeyId");

-- CreateIndex
CREATE INDEX "CreditLease_instanceId_idx" ON "CreditLease"("instanceId");

-- AddForeignKey
ALTER TABLE "BalanceMovement" ADD CONSTRAINT "BalanceMovement_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CreditLease" ADD CONSTRAINT "CreditLease_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the movements of what happened before this migration, so that on an upgraded
-- database, too, every workspace's balance is the sum of its movements and every key's `spent`
-- the sum of its usage movements (server/ledger/movements.ts).
INSERT INTO "BalanceMovement" ("id", "workspaceId", "apiKeyId", "kind", "amount", "createdAt")
SELECT e."kind"::text || ':' || e."id", e."workspaceId", NULL, e."kind"::text::"MovementKind", e."amount", e."createdAt"
FROM "CreditLedgerEntry" e;

INSERT INTO "BalanceMovement" ("id", "workspaceId", "apiKeyId", "kind", "amount", "createdAt")
SELECT 'usage:' || u."id", u."workspaceId", u."apiKeyId", 'usage', -u."cost", u."createdAt"
FROM "UsageEvent" u;

INSERT INTO "BalanceMovement" ("id", "workspaceId", "apiKeyId", "kind", "amount", "createdAt")
SELECT 'video_reserve:' || v."id", v."workspaceId", v."apiKeyId", 'video_reserve', -v."reservedAmount", v."createdAt"
FROM "VideoJob" v;

INSERT INTO "BalanceMovement" ("id", "workspaceId", "apiKeyId", "kind", "amount", "createdAt")
SELECT 'video_release:' || v."id", v."workspaceId", v."apiKeyId",
  CASE WHEN v."status" = 'completed' THEN 'video_settle' ELSE 'video_release' END::"MovementKind",
  v."reservedAmount", COALESCE(v."completedAt", v."createdAt")
FROM "VideoJob" v WHERE v."status" IN ('completed', 'failed');

-- A balance that had drifted from its history is not silently changed: the difference becomes an
-- adjustment in the credits ledger, visible on the billing page.
WITH drift AS (
  SELECT w."id", w."balance" - COALESCE((SELECT SUM(m."amount") FROM "BalanceMovement" m WHERE m."workspaceId" = w."id"), 0) AS amount
  FROM "Workspace" w
), entries AS (
  INSERT INTO "CreditLedgerEntry" ("id", "workspaceId", "kind", "amount", "note")
  SELECT 'cred_migration_' || d."id", d."id", 'adjustment', d."amount", 'Ledger migration: the balance differed from its credits and charges by this amount'
  FROM drift d WHERE d."amount" <> 0
  RETURNING "id", "workspaceId", "amount"
)
INSERT INTO "BalanceMovement" ("id", "workspaceId", "apiKeyId", "kind", "amount")
SELECT 'adjustment:' || e."id", e."workspaceId", NULL, 'adjustment', e."amount" FROM entries e;
