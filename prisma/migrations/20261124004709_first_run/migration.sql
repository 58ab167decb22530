-- AlterTable
ALTER TABLE "User" ADD COLUMN     "signupCreditsAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "InstallSetting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "InstallSetting_pkey" PRIMARY KEY ("key")
);
