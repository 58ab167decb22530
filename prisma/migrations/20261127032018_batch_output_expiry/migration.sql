-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "outputExpiresAfter" INTEGER;
