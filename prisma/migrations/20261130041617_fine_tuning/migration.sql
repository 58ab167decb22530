-- CreateEnum
CREATE TYPE "FineTuningStatus" AS ENUM ('validating_files', 'queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "MovementKind" ADD VALUE 'ft_reserve';
ALTER TYPE "MovementKind" ADD VALUE 'ft_settle';
ALTER TYPE "MovementKind" ADD VALUE 'ft_release';

-- AlterTable
ALTER TABLE "Model" ADD COLUMN     "baseModelId" TEXT,
ADD COLUMN     "fineTunable" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "fineTuningJobId" TEXT,
ADD COLUMN     "ownerWorkspaceId" TEXT,
ADD COLUMN     "priceFtInputPer1m" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN     "priceFtOutputPer1m" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN     "priceTrainingPer1m" DECIMAL(38,18) NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "FineTuningJob" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "planId" TEXT,
    "subject" TEXT,
    "model" TEXT NOT NULL,
    "nodeId" TEXT,
    "nodeJobId" TEXT,
    "nodeTrainingFileId" TEXT,
    "nodeValidationFileId" TEXT,
    "trainingFileId" TEXT NOT NULL,
    "validationFileId" TEXT,
    "suffix" TEXT,
    "seed" INTEGER NOT NULL,
    "method" JSONB NOT NULL,
    "status" "FineTuningStatus" NOT NULL DEFAULT 'validating_files',
    "error" JSONB,
    "metadata" JSONB,
    "fineTunedModel" TEXT,
    "nodeFineTunedModel" TEXT,
    "estimatedTokens" INTEGER NOT NULL DEFAULT 0,
    "trainedTokens" INTEGER,
    "pricePer1m" DECIMAL(38,18) NOT NULL,
    "reservedAmount" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "cost" DECIMAL(38,18),
    "resultFiles" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "estimatedFinish" TIMESTAMP(3),
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "workerId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FineTuningJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FineTuningEvent" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "level" TEXT NOT NULL DEFAULT 'info',
    "message" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'message',
    "data" JSONB,
    "nodeEventId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FineTuningEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FineTuningCheckpoint" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "stepNumber" INTEGER NOT NULL,
    "fineTunedModelCheckpoint" TEXT NOT NULL,
    "nodeModel" TEXT NOT NULL,
    "metrics" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FineTuningCheckpoint_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "FineTuningJob_workspaceId_createdAt_idx" ON "FineTuningJob"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "FineTuningJob_status_idx" ON "FineTuningJob"("status");

-- CreateIndex
CREATE INDEX "FineTuningEvent_jobId_seq_idx" ON "FineTuningEvent"("jobId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "FineTuningEvent_jobId_nodeEventId_key" ON "FineTuningEvent"("jobId", "nodeEventId");

-- CreateIndex
CREATE UNIQUE INDEX "FineTuningCheckpoint_jobId_stepNumber_key" ON "FineTuningCheckpoint"("jobId", "stepNumber");

-- AddForeignKey
ALTER TABLE "FineTuningEvent" ADD CONSTRAINT "FineTuningEvent_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "FineTuningJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FineTuningCheckpoint" ADD CONSTRAINT "FineTuningCheckpoint_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "FineTuningJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
