-- AlterTable
ALTER TABLE "PlanStep" ADD COLUMN     "expansion" JSONB,
ADD COLUMN     "forEachField" TEXT,
ADD COLUMN     "forEachFrom" INTEGER,
ADD COLUMN     "forEachMaxParallel" INTEGER,
ADD COLUMN     "parentIndex" INTEGER;
