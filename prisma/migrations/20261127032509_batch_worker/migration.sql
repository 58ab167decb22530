-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "workerId" TEXT;
