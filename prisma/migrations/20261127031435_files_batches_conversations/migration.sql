-- CreateEnum
CREATE TYPE "BatchStatus" AS ENUM ('validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled');

-- AlterEnum
ALTER TYPE "ModelType" ADD VALUE 'moderation';

-- AlterTable
ALTER TABLE "Model" ADD COLUMN     "batchDiscount" DECIMAL(9,6) NOT NULL DEFAULT 0.5;

-- CreateTable
CREATE TABLE "StoredFile" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "filename" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "blobKey" TEXT NOT NULL,
    "contentType" TEXT NOT NULL DEFAULT 'application/octet-stream',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3),

    CONSTRAINT "StoredFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Batch" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "caller" JSONB NOT NULL,
    "endpoint" TEXT NOT NULL,
    "inputFileId" TEXT NOT NULL,
    "completionWindow" TEXT NOT NULL,
    "status" "BatchStatus" NOT NULL DEFAULT 'validating',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "errors" JSONB,
    "outputFileId" TEXT,
    "errorFileId" TEXT,
    "total" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "usage" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "inProgressAt" TIMESTAMP(3),
    "finalizingAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "failedAt" TIMESTAMP(3),
    "expiredAt" TIMESTAMP(3),
    "cancellingAt" TIMESTAMP(3),
    "cancelledAt" TIMESTAMP(3),

    CONSTRAINT "Batch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BatchLine" (
    "batchId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "customId" TEXT NOT NULL,
    "statusCode" INTEGER NOT NULL,
    "requestId" TEXT NOT NULL,
    "body" JSONB,
    "error" JSONB,
    "cost" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BatchLine_pkey" PRIMARY KEY ("batchId","index")
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConversationItem" (
    "conversationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "item" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConversationItem_pkey" PRIMARY KEY ("conversationId","id")
);

-- CreateIndex
CREATE INDEX "StoredFile_workspaceId_createdAt_idx" ON "StoredFile"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "StoredFile_workspaceId_purpose_createdAt_idx" ON "StoredFile"("workspaceId", "purpose", "createdAt");

-- CreateIndex
CREATE INDEX "StoredFile_expiresAt_idx" ON "StoredFile"("expiresAt");

-- CreateIndex
CREATE INDEX "Batch_workspaceId_createdAt_idx" ON "Batch"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Batch_status_idx" ON "Batch"("status");

-- CreateIndex
CREATE INDEX "Conversation_workspaceId_createdAt_idx" ON "Conversation"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "ConversationItem_conversationId_seq_idx" ON "ConversationItem"("conversationId", "seq");

-- AddForeignKey
ALTER TABLE "StoredFile" ADD CONSTRAINT "StoredFile_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Batch" ADD CONSTRAINT "Batch_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BatchLine" ADD CONSTRAINT "BatchLine_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "Batch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationItem" ADD CONSTRAINT "ConversationItem_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
