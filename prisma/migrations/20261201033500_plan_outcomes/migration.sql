-- AlterEnum
ALTER TYPE "MessageKind" ADD VALUE 'outcome';

-- AlterEnum
ALTER TYPE "PlanStatus" ADD VALUE 'partial';
