-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "disabledAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "authorAgentHandle" TEXT,
ADD COLUMN     "authorAgentName" TEXT;
