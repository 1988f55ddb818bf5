-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "commanderReplies" TEXT NOT NULL DEFAULT 'auto',
ADD COLUMN     "historySummary" TEXT,
ADD COLUMN     "historySummaryUpToAt" TIMESTAMP(3),
ADD COLUMN     "historySummaryUpToId" TEXT;
