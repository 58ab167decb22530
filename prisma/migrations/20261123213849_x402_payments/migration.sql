-- CreateEnum
CREATE TYPE "X402PaymentStatus" AS ENUM ('verified', 'settling', 'settled', 'released', 'failed');

-- AlterTable
ALTER TABLE "UsageEvent" ADD COLUMN     "payer" TEXT,
ADD COLUMN     "paymentScheme" TEXT,
ADD COLUMN     "paymentTx" TEXT;

-- CreateTable
CREATE TABLE "X402Payment" (
    "id" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "scheme" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "maxAmount" DECIMAL(78,0) NOT NULL,
    "settledAmount" DECIMAL(78,0),
    "status" "X402PaymentStatus" NOT NULL DEFAULT 'verified',
    "endpoint" TEXT NOT NULL,
    "modelId" TEXT NOT NULL,
    "eventId" TEXT,
    "videoJobId" TEXT,
    "txHash" TEXT,
    "errorReason" TEXT,
    "payload" JSONB NOT NULL,
    "requirements" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMP(3),

    CONSTRAINT "X402Payment_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "X402Payment_eventId_key" ON "X402Payment"("eventId");

-- CreateIndex
CREATE UNIQUE INDEX "X402Payment_videoJobId_key" ON "X402Payment"("videoJobId");

-- CreateIndex
CREATE INDEX "X402Payment_createdAt_idx" ON "X402Payment"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "X402Payment_network_asset_payer_nonce_key" ON "X402Payment"("network", "asset", "payer", "nonce");

-- CreateIndex
CREATE INDEX "UsageEvent_payer_createdAt_idx" ON "UsageEvent"("payer", "createdAt");

-- The workspace x402 calls are recorded in: it has no members and no credit. Each payment is
-- credited to it and charged by its call in the same statement, so its balance stays at zero.
INSERT INTO "Workspace" ("id", "name", "balance", "createdAt", "updatedAt")
VALUES ('ws_x402', 'x402 payments', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
ON CONFLICT ("id") DO NOTHING;
