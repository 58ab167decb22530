-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "mcpAdhocServers" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "tools" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "tools" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "McpServer" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "transport" TEXT NOT NULL DEFAULT 'streamable_http',
    "authKind" TEXT NOT NULL DEFAULT 'none',
    "authSealed" TEXT,
    "pricePerCall" DECIMAL(38,18),
    "toolPrices" JSONB NOT NULL DEFAULT '{}',
    "description" TEXT,
    "catalog" JSONB,
    "catalogAt" TIMESTAMP(3),
    "status" TEXT NOT NULL DEFAULT 'unknown',
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "McpServer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpSession" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "protocolVersion" TEXT NOT NULL,
    "clientInfo" JSONB,
    "upstream" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "McpServer_scope_name_key" ON "McpServer"("scope", "name");

-- CreateIndex
CREATE INDEX "McpSession_workspaceId_idx" ON "McpSession"("workspaceId");

-- CreateIndex
CREATE INDEX "McpSession_lastUsedAt_idx" ON "McpSession"("lastUsedAt");
