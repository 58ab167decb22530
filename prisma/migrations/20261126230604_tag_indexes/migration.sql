-- CreateIndex
CREATE INDEX "UsageEvent_tags_idx" ON "UsageEvent" USING GIN ("tags" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "RequestLog_tags_idx" ON "RequestLog" USING GIN ("tags" jsonb_path_ops);
