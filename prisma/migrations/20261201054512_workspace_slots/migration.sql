-- CreateEnum
CREATE TYPE "SlotStatus" AS ENUM ('active', 'removed');

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "repositoryBaseBranch" TEXT,
ADD COLUMN     "repositoryId" TEXT;

-- CreateTable
CREATE TABLE "Repository" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "cloneUrl" TEXT,
    "baseBranch" TEXT NOT NULL DEFAULT 'main',
    "createdByUserId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Repository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Slot" (
    "id" TEXT NOT NULL,
    "repositoryId" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "stepIndex" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "status" "SlotStatus" NOT NULL DEFAULT 'active',
    "baseCommit" TEXT NOT NULL DEFAULT '',
    "headCommit" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "removedAt" TIMESTAMP(3),

    CONSTRAINT "Slot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Repository_name_key" ON "Repository"("name");

-- CreateIndex
CREATE INDEX "Slot_repositoryId_status_idx" ON "Slot"("repositoryId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Slot_planId_stepIndex_key" ON "Slot"("planId", "stepIndex");

-- CreateIndex
CREATE UNIQUE INDEX "Slot_repositoryId_branch_key" ON "Slot"("repositoryId", "branch");

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Slot" ADD CONSTRAINT "Slot_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;
