-- AlterEnum
ALTER TYPE "MessageKind" ADD VALUE 'stopped';

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "rerunOfId" TEXT;
