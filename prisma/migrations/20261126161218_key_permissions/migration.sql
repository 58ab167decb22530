-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "models" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "permissions" TEXT[] DEFAULT ARRAY[]::TEXT[];
