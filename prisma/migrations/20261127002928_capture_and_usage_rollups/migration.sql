-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "captureBodies" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "captureMaxBytes" INTEGER NOT NULL DEFAULT 32768,
ADD COLUMN     "captureRedact" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "captureBodies" BOOLEAN;

-- AlterTable
ALTER TABLE "RequestLog" ADD COLUMN     "captured" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "RequestLogBody" (
    "id" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "request" BYTEA,
    "response" BYTEA,
    "requestBytes" INTEGER NOT NULL DEFAULT 0,
    "responseBytes" INTEGER NOT NULL DEFAULT 0,
    "truncated" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "RequestLogBody_pkey" PRIMARY KEY ("createdAt","id")
) PARTITION BY RANGE ("createdAt");

-- Day partitions beside the request log's, made and dropped with them (server/request-log/partitions.ts).
CREATE TABLE "RequestLogBody_default" PARTITION OF "RequestLogBody" DEFAULT;

-- CreateTable
CREATE TABLE "UsageDaily" (
    "workspaceId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "modelId" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL DEFAULT '',
    "planId" TEXT NOT NULL DEFAULT '',
    "cost" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "inputTokens" BIGINT NOT NULL DEFAULT 0,
    "outputTokens" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "UsageDaily_pkey" PRIMARY KEY ("workspaceId","day","modelId","apiKeyId","planId")
);

-- CreateTable
CREATE TABLE "UsageDailyTag" (
    "workspaceId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "tagKey" TEXT NOT NULL,
    "tagValue" TEXT NOT NULL,
    "modelId" TEXT NOT NULL,
    "cost" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "inputTokens" BIGINT NOT NULL DEFAULT 0,
    "outputTokens" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "UsageDailyTag_pkey" PRIMARY KEY ("workspaceId","day","tagKey","tagValue","modelId")
);

-- AddForeignKey
ALTER TABLE "UsageDaily" ADD CONSTRAINT "UsageDaily_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageDailyTag" ADD CONSTRAINT "UsageDailyTag_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
