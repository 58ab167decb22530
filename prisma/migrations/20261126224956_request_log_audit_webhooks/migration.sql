-- AlterTable
ALTER TABLE "UsageEvent" ADD COLUMN     "tags" JSONB;

-- CreateTable
CREATE TABLE "RequestLog" (
    "id" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "workspaceId" TEXT,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "model" TEXT,
    "nodeId" TEXT,
    "credential" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "planId" TEXT,
    "subject" TEXT,
    "payer" TEXT,
    "status" INTEGER NOT NULL,
    "errorCode" TEXT,
    "durationMs" INTEGER NOT NULL,
    "upstreamMs" INTEGER,
    "firstByteMs" INTEGER,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(38,18),
    "usageEstimated" BOOLEAN NOT NULL DEFAULT false,
    "cache" TEXT,
    "tags" JSONB,
    "clientIp" TEXT,
    "userAgent" TEXT,

    CONSTRAINT "RequestLog_pkey" PRIMARY KEY ("createdAt","id")
) PARTITION BY RANGE ("createdAt");

-- One partition per UTC day, made ahead by the gateway (server/request-log/partitions.ts) and
-- dropped whole once older than LOG_RETENTION_DAYS. The default partition takes a row no day's
-- partition does (none, while the gateway runs its maintenance).
CREATE TABLE "RequestLog_default" PARTITION OF "RequestLog" DEFAULT;

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT,
    "changes" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secretEncrypted" TEXT NOT NULL,
    "balanceBelow" DECIMAL(38,18),
    "spendShare" DECIMAL(10,6),
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_createdAt_id_idx" ON "RequestLog"("workspaceId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_status_createdAt_idx" ON "RequestLog"("workspaceId", "status", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_apiKeyId_createdAt_idx" ON "RequestLog"("workspaceId", "apiKeyId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_workspaceId_errorCode_createdAt_idx" ON "RequestLog"("workspaceId", "errorCode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_id_idx" ON "RequestLog"("id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_createdAt_idx" ON "AuditEvent"("workspaceId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_createdAt_idx" ON "AuditEvent"("createdAt" DESC);

-- CreateIndex
CREATE INDEX "Webhook_workspaceId_idx" ON "Webhook"("workspaceId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhookId_createdAt_idx" ON "WebhookDelivery"("webhookId", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhookId_eventId_key" ON "WebhookDelivery"("webhookId", "eventId");

-- AddForeignKey
ALTER TABLE "Webhook" ADD CONSTRAINT "Webhook_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;
