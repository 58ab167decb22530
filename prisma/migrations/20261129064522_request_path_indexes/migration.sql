-- DropIndex
DROP INDEX "BalanceMovement_workspaceId_createdAt_idx";

-- DropIndex
DROP INDEX "BalanceMovement_apiKeyId_idx";

-- DropIndex
DROP INDEX "UsageEvent_workspaceId_subject_createdAt_idx";

-- DropIndex
DROP INDEX "UsageEvent_payer_createdAt_idx";

-- DropIndex
DROP INDEX "UsageEvent_tags_idx";

-- DropIndex
DROP INDEX "RequestLog_workspaceId_status_createdAt_idx";

-- DropIndex
DROP INDEX "RequestLog_workspaceId_errorCode_createdAt_idx";

-- DropIndex
DROP INDEX "RequestLog_workspaceId_subject_createdAt_id_idx";

-- DropIndex
DROP INDEX "RequestLog_workspaceId_planId_createdAt_id_idx";

-- DropIndex
DROP INDEX "RequestLog_id_idx";

-- DropIndex
DROP INDEX "RequestLog_tags_idx";

-- CreateIndex
CREATE INDEX "UsageEvent_workspaceId_subject_createdAt_idx" ON "UsageEvent"("workspaceId", "subject", "createdAt") WHERE ("subject" IS NOT NULL);

-- CreateIndex
CREATE INDEX "UsageEvent_payer_createdAt_idx" ON "UsageEvent"("payer", "createdAt") WHERE ("payer" IS NOT NULL);

-- CreateIndex
CREATE INDEX "UsageEvent_tags_idx" ON "UsageEvent" USING GIN ("tags" jsonb_path_ops) WHERE ("tags" IS NOT NULL);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_status_createdAt_idx" ON "RequestLog"("workspaceId", "status", "createdAt" DESC) WHERE ("status" >= 300);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_errorCode_createdAt_idx" ON "RequestLog"("workspaceId", "errorCode", "createdAt" DESC) WHERE ("errorCode" IS NOT NULL);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_subject_createdAt_id_idx" ON "RequestLog"("workspaceId", "subject", "createdAt" DESC, "id" DESC) WHERE ("subject" IS NOT NULL);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_planId_createdAt_id_idx" ON "RequestLog"("workspaceId", "planId", "createdAt" DESC, "id" DESC) WHERE ("planId" IS NOT NULL);

-- CreateIndex
CREATE INDEX "RequestLog_tags_idx" ON "RequestLog" USING GIN ("tags" jsonb_path_ops) WHERE ("tags" IS NOT NULL);
