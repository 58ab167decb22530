-- AlterTable
ALTER TABLE "RequestLog" ADD COLUMN     "guardrails" JSONB;

-- CreateTable
CREATE TABLE "Guardrail" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "secret" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Guardrail_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GuardrailAttachment" (
    "guardrailId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GuardrailAttachment_pkey" PRIMARY KEY ("guardrailId","workspaceId","target")
);

-- CreateIndex
CREATE UNIQUE INDEX "Guardrail_scope_name_key" ON "Guardrail"("scope", "name");

-- CreateIndex
CREATE INDEX "GuardrailAttachment_workspaceId_idx" ON "GuardrailAttachment"("workspaceId");

-- AddForeignKey
ALTER TABLE "GuardrailAttachment" ADD CONSTRAINT "GuardrailAttachment_guardrailId_fkey" FOREIGN KEY ("guardrailId") REFERENCES "Guardrail"("id") ON DELETE CASCADE ON UPDATE CASCADE;
