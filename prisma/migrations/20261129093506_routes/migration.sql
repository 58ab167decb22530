-- AlterTable
ALTER TABLE "RequestLog" ADD COLUMN     "routing" JSONB;

-- CreateTable
CREATE TABLE "Route" (
    "scope" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Route_pkey" PRIMARY KEY ("scope","name")
);
