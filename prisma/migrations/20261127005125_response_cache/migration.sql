-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "cacheDefault" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "cacheMaxTtlSeconds" INTEGER NOT NULL DEFAULT 86400,
ADD COLUMN     "cachePriceFraction" DECIMAL(9,6) NOT NULL DEFAULT 0,
ADD COLUMN     "cacheSampling" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "cacheTtlSeconds" INTEGER NOT NULL DEFAULT 3600;

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "cacheDefault" BOOLEAN,
ADD COLUMN     "cacheOwnScope" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "UsageEvent" ADD COLUMN     "cacheHit" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "cacheSaved" DECIMAL(38,18) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "cacheDefault" BOOLEAN,
ADD COLUMN     "cacheOwnScope" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "ResponseCacheEntry" (
    "workspaceId" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "hash" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "modelId" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "kind" TEXT NOT NULL,
    "named" BOOLEAN NOT NULL DEFAULT false,
    "done" BOOLEAN NOT NULL DEFAULT false,
    "body" BYTEA NOT NULL,
    "bytes" INTEGER NOT NULL,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(38,18) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ResponseCacheEntry_pkey" PRIMARY KEY ("workspaceId","scope","hash")
);

-- CreateIndex
CREATE INDEX "ResponseCacheEntry_expiresAt_idx" ON "ResponseCacheEntry"("expiresAt");

-- CreateIndex
CREATE INDEX "ResponseCacheEntry_workspaceId_modelId_idx" ON "ResponseCacheEntry"("workspaceId", "modelId");

-- AddForeignKey
ALTER TABLE "ResponseCacheEntry" ADD CONSTRAINT "ResponseCacheEntry_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
