-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "usageEstimated" BOOLEAN NOT NULL DEFAULT false;
