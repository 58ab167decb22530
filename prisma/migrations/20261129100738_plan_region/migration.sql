-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "region" TEXT;
