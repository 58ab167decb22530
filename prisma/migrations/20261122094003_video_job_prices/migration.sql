-- AlterTable
ALTER TABLE "VideoJob" ADD COLUMN     "priceMultiplier" DECIMAL(38,18) NOT NULL,
ADD COLUMN     "pricePerVideoSecond" DECIMAL(38,18) NOT NULL,
ADD COLUMN     "workerId" TEXT;

-- CreateIndex
CREATE INDEX "VideoJob_expiresAt_idx" ON "VideoJob"("expiresAt");
