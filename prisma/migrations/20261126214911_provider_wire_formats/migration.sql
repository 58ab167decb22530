-- CreateEnum
CREATE TYPE "NodeWire" AS ENUM ('openai', 'anthropic', 'gemini');

-- AlterTable
ALTER TABLE "UsageEvent" ADD COLUMN     "cacheWriteTokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "usageEstimated" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Model" ADD COLUMN     "priceCacheWritePer1m" DECIMAL(38,18) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "wire" "NodeWire" NOT NULL DEFAULT 'openai';
