-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "submissionHash" TEXT;
