-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_subject_createdAt_id_idx" ON "RequestLog"("workspaceId", "subject", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_model_createdAt_id_idx" ON "RequestLog"("workspaceId", "model", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_planId_createdAt_id_idx" ON "RequestLog"("workspaceId", "planId", "createdAt" DESC, "id" DESC);
