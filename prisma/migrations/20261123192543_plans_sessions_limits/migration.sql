-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "defaultConcurrency" INTEGER,
ADD COLUMN     "defaultRpm" INTEGER,
ADD COLUMN     "defaultTpm" INTEGER;

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "planId" TEXT;

-- AlterTable
ALTER TABLE "UsageEvent" ADD COLUMN     "planId" TEXT,
ADD COLUMN     "subject" TEXT;

-- AlterTable
ALTER TABLE "VideoJob" ADD COLUMN     "planId" TEXT,
ADD COLUMN     "subject" TEXT;

-- CreateTable
CREATE TABLE "Plan" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "models" TEXT[],
    "rpm" INTEGER,
    "tpm" INTEGER,
    "concurrency" INTEGER,
    "dailyCap" DECIMAL(38,18),
    "monthlyCap" DECIMAL(38,18),
    "maxTtlSeconds" INTEGER NOT NULL DEFAULT 3600,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Plan_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlanSession" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "spendCap" DECIMAL(38,18),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "PlanSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL,
    "algorithm" TEXT NOT NULL,
    "publicJwk" JSONB NOT NULL,
    "privateKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" TIMESTAMP(3),
    "publishedUntil" TIMESTAMP(3),

    CONSTRAINT "SigningKey_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "TrustedIssuer" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "jwksUrl" TEXT NOT NULL,
    "audience" TEXT NOT NULL,
    "subjectClaim" TEXT NOT NULL DEFAULT 'sub',
    "planClaim" TEXT NOT NULL DEFAULT 'plan',
    "defaultPlanId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TrustedIssuer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SpendCounter" (
    "workspaceId" TEXT NOT NULL,
    "counter" TEXT NOT NULL,
    "spent" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SpendCounter_pkey" PRIMARY KEY ("workspaceId","counter")
);

-- CreateTable
CREATE TABLE "RateWindow" (
    "scope" TEXT NOT NULL,
    "windowStart" BIGINT NOT NULL,
    "taken" INTEGER NOT NULL DEFAULT 0,
    "lastTake" INTEGER NOT NULL DEFAULT 0,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "RateWindow_pkey" PRIMARY KEY ("scope","windowStart")
);

-- CreateTable
CREATE TABLE "ConcurrencyLease" (
    "scope" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "slots" INTEGER NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ConcurrencyLease_pkey" PRIMARY KEY ("scope","instanceId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Plan_workspaceId_name_key" ON "Plan"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "PlanSession_workspaceId_subject_idx" ON "PlanSession"("workspaceId", "subject");

-- CreateIndex
CREATE INDEX "PlanSession_planId_expiresAt_idx" ON "PlanSession"("planId", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "TrustedIssuer_issuer_audience_key" ON "TrustedIssuer"("issuer", "audience");

-- CreateIndex
CREATE INDEX "RateWindow_expiresAt_idx" ON "RateWindow"("expiresAt");

-- CreateIndex
CREATE INDEX "UsageEvent_workspaceId_subject_createdAt_idx" ON "UsageEvent"("workspaceId", "subject", "createdAt");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_planId_fkey" FOREIGN KEY ("planId") REFERENCES "Plan"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Plan" ADD CONSTRAINT "Plan_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlanSession" ADD CONSTRAINT "PlanSession_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlanSession" ADD CONSTRAINT "PlanSession_planId_fkey" FOREIGN KEY ("planId") REFERENCES "Plan"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrustedIssuer" ADD CONSTRAINT "TrustedIssuer_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SpendCounter" ADD CONSTRAINT "SpendCounter_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
