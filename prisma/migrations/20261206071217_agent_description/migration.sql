-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "description" TEXT NOT NULL DEFAULT '';
